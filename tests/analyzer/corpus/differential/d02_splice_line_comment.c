// expect: pass
// output: one
// a backslash at the end of a // comment continues the comment on the next line
#include <stdio.h>
int main(void)
{
	// the next line is still a comment \
	puts("two");
	puts("one");
	return 0;
}
