// expect: pass
/* refused before issue 14 -- not_allowed: memmem was not on the allowlist */
/* survey: memmem search in a buffer */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
int main(void)
{
	const char hay[] = "abc\0def\0ghi";
	const char *p = memmem(hay, sizeof(hay), "def", 3);
	printf("{\"at\":%d}\n", p ? (int)(p - hay) : -1);
	return 0;
}
