// expect: pass
// output: 6
// C89 has no // comments: 6 //**/ 2 is 6 / 2 there, 6 in gnu11
#include <stdio.h>
int main(void)
{
	int x = 6 //**/ 2
		;
	printf("%d\n", x);
	return 0;
}
