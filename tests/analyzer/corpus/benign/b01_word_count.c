// expect: pass
/* Count words, lines and bytes of the text on stdin. */
#include <stdio.h>
#include <ctype.h>
#include <stdbool.h>

int main(void)
{
	long words = 0, lines = 0, bytes = 0;
	bool in_word = false;
	int c;

	while ((c = getchar()) != EOF) {
		bytes++;
		if (c == '\n')
			lines++;
		if (isspace(c)) {
			in_word = false;
		} else if (!in_word) {
			in_word = true;
			words++;
		}
	}
	printf("{\"words\":%ld,\"lines\":%ld,\"bytes\":%ld}\n", words, lines, bytes);
	return 0;
}
