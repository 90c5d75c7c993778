// expect: no_prototype
// finding: no_prototype: scale is called through a declaration without a prototype
/* int f(); then a call with the wrong arguments, before the real definition */
#include <stdio.h>
int scale();
int main(void)
{
	printf("%d\n", scale(2.5, 3, "x"));
	return 0;
}
int scale(int x)
{
	return x * 2;
}
