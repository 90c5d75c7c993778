// expect: pass
// output: 24930
// the value of a multi-character constant is implementation-defined
#include <stdio.h>
int main(void)
{
	printf("%d\n", 'ab');
	return 0;
}
