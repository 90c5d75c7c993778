// expect: pass
// output: one
// gcc (gnu11) lexes R"(...)" as a raw string; clang C reads R, a string and a comment
#include <stdio.h>
#define R
int main(void)
{
	const char *s = R"(" /* )";
	puts("two"); /* */;
	puts("one");
	(void)s;
	return 0;
}
