// expect: pass
/* survey: mean and standard deviation */
#include <math.h>
#include <stdio.h>
int main(void)
{
	double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 }, m = 0, s = 0;
	int n = 8;
	for (int i = 0; i < n; i++)
		m += v[i];
	m /= n;
	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	printf("{\"mean\":%g,\"sd\":%g}\n", m, sqrt(s / n));
	return 0;
}
