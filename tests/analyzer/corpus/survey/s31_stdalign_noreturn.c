// expect: pass
/* refused before issue 14 -- include (then attribute): <stdalign.h>/<stdnoreturn.h> refused; their alignas/noreturn macros came out as unnamed attributes */
/* survey: stdalign.h and stdnoreturn.h */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
static noreturn void die(const char *m)
{
	fprintf(stderr, "%s\n", m);
	exit(1);
}
int main(void)
{
	alignas(16) unsigned char buf[32];
	if ((size_t)alignof(max_align_t) < 8)
		die("odd platform");
	buf[0] = 1;
	printf("{\"b\":%d}\n", buf[0]);
	return 0;
}
