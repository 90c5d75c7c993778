// expect: pass
/* survey: recursion (fibonacci with memo) */
#include <stdio.h>
static long long memo[91];
static long long fib(int n)
{
	if (n < 2)
		return n;
	if (memo[n])
		return memo[n];
	return memo[n] = fib(n - 1) + fib(n - 2);
}
int main(void)
{
	printf("{\"fib\":%lld}\n", fib(90));
	return 0;
}
