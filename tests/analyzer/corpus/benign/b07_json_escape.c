// expect: pass
/* Escape stdin as a JSON string. */
#include <stdio.h>

int main(void)
{
	int c;
	putchar('"');
	while ((c = getchar()) != EOF) {
		switch (c) {
		case '"': fputs("\\\"", stdout); break;
		case '\\': fputs("\\\\", stdout); break;
		case '\n': fputs("\\n", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		case '\r': fputs("\\r", stdout); break;
		default:
			if (c < 0x20)
				printf("\\u%04x", c);
			else
				putchar(c);
		}
	}
	puts("\"");
	return 0;
}
