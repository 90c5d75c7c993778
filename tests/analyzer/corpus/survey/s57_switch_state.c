// expect: pass
/* survey: state machine with a switch */
#include <stdio.h>
enum st { OUT, IN };
int main(void)
{
	const char *s = "  count these  words ";
	enum st st = OUT;
	int words = 0;
	for (; *s; s++) {
		switch (st) {
		case OUT:
			if (*s != ' ') {
				st = IN;
				words++;
			}
			break;
		case IN:
			if (*s == ' ')
				st = OUT;
			break;
		}
	}
	printf("{\"words\":%d}\n", words);
	return 0;
}
