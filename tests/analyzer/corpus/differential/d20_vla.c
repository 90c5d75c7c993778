// expect: pass
// output: 10
// variable-length arrays (optional in C11, always in gcc and clang)
#include <stdio.h>
static int sum(int n)
{
	int a[n];
	int s = 0;
	for (int i = 0; i < n; i++)
		a[i] = i;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}
int main(void) { printf("%d\n", sum(5)); return 0; }
