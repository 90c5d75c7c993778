// expect: pass
/* prototypes: (void), parameters, an empty-parenthesis declaration completed by a prototype before its call, main() never called */
#include <stdio.h>
static int zero(void) { return 0; }
static int twice(int x) { return 2 * x; }
int later();
int later(void) { return 1; }
int main()
{
	printf("%d %d %d\n", zero(), twice(3), later());
	return 0;
}
