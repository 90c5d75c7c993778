// expect: format_n
// finding: format_n: printf: the format holds %n,
/* %n stores the count printed so far through a pointer: a write primitive that _FORTIFY_SOURCE allows in a read-only (literal) format */
#include <stdio.h>
int main(void)
{
	int n = 0;
	printf("abc%n\n", &n);
	return n;
}
