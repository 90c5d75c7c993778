// expect: pass
/* survey: gcd and lcm */
#include <stdio.h>
static unsigned long gcd(unsigned long a, unsigned long b)
{
	return b ? gcd(b, a % b) : a;
}
int main(void)
{
	unsigned long a = 84, b = 36;
	printf("{\"gcd\":%lu,\"lcm\":%lu}\n", gcd(a, b), a / gcd(a, b) * b);
	return 0;
}
