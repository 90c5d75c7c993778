// expect: pass
// output: 7
// $ in identifiers is an extension of both, off in some targets
#include <stdio.h>
int main(void)
{
	int a$b = 7;
	printf("%d\n", a$b);
	return 0;
}
