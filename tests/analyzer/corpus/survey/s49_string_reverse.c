// expect: pass
/* survey: reverse words in place */
#include <stdio.h>
#include <string.h>
static void rev(char *a, char *b)
{
	while (a < b) {
		char t = *a;
		*a++ = *b;
		*b-- = t;
	}
}
int main(void)
{
	char s[] = "one two three";
	size_t n = strlen(s);
	rev(s, s + n - 1);
	for (char *w = s, *e; *w; w = *e ? e + 1 : e) {
		e = strchr(w, ' ');
		if (!e)
			e = w + strlen(w);
		rev(w, e - 1);
	}
	printf("{\"s\":\"%s\"}\n", s);
	return 0;
}
