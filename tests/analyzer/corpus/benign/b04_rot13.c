// expect: pass
/* ROT13 of stdin. */
#include <stdio.h>
#include <ctype.h>

static int rot13(int c)
{
	if (islower(c))
		return 'a' + (c - 'a' + 13) % 26;
	if (isupper(c))
		return 'A' + (c - 'A' + 13) % 26;
	return c;
}

int main(void)
{
	int c;
	putchar('"');
	while ((c = getchar()) != EOF) {
		c = rot13(c);
		if (c == '"' || c == '\\')
			putchar('\\');
		if (c == '\n')
			fputs("\\n", stdout);
		else
			putchar(c);
	}
	puts("\"");
	return 0;
}
