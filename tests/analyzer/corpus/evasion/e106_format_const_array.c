// expect: format_string
// finding: format_string: printf: the format must be a string literal
/* a const array is not a literal at the call: only literals are read */
#include <stdio.h>
static const char fmt[] = "%n";
int main(void)
{
	int n = 0;
	printf(fmt, &n);
	return n;
}
