// expect: no_prototype
// finding: no_prototype: add has an old-style (K&R) definition
// finding: no_prototype: add is called through a declaration without a prototype
/* an old-style definition: the call with a pointer where an int is declared compiles silently */
#include <stdio.h>
int add(a, b)
int a;
int b;
{
	return a + b;
}
int main(void)
{
	printf("%d\n", add(1, "two"));
	return 0;
}
