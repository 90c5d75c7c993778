// expect: pass
/* survey: look up a word with bsearch */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *k, const void *e)
{
	return strcmp(k, *(const char *const *)e);
}
int main(void)
{
	static const char *const words[] = { "apple", "kiwi", "mango", "pear" };
	const char *const *hit = bsearch("mango", words, 4, sizeof(words[0]), cmp);
	printf("{\"index\":%d}\n", hit ? (int)(hit - words) : -1);
	return 0;
}
