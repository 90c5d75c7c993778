// expect: pass
/* Look up a key among sorted names with bsearch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot" };

static int cmp(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

int main(void)
{
	char key[64];
	const char *const *hit;

	if (scanf("%63s", key) != 1)
		return 1;
	hit = bsearch(key, names, sizeof(names) / sizeof(names[0]), sizeof(names[0]), cmp);
	if (hit)
		printf("{\"found\":true,\"index\":%td}\n", hit - names);
	else
		puts("{\"found\":false}");
	return 0;
}
