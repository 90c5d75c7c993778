// expect: pass
/* survey: variable-length array */
#include <stdio.h>
static int sum(int n, const int a[n])
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}
int main(void)
{
	int n = 5;
	int v[n];
	for (int i = 0; i < n; i++)
		v[i] = i * i;
	printf("{\"sum\":%d}\n", sum(n, v));
	return 0;
}
