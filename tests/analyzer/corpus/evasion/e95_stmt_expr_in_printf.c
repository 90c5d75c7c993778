// expect: stmt_expr
/* a statement expression the tool wrote inside the printf macro, directly and through its own macros (issue 14: the harmless use is allowed, this misuse is not) */
#include <stdio.h>
#define L (
#define R {
int main(void)
{
	printf("%d\n", ({ 1; }));
	printf("%d\n", L R 2; }));
	return 0;
}
