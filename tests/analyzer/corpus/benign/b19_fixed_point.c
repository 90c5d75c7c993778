// expect: pass
/* Newton iteration for cube roots, checked against cbrt. */
#include <stdio.h>
#include <math.h>
#include <assert.h>
#include <errno.h>

static double newton_cbrt(double x)
{
	double g = x > 1 ? x / 3 : 1;
	int i;
	for (i = 0; i < 100; i++) {
		double next = g - (g * g * g - x) / (3 * g * g);
		if (fabs(next - g) < 1e-12)
			break;
		g = next;
	}
	return g;
}

int main(void)
{
	double x;
	errno = 0;
	if (scanf("%lf", &x) != 1 || x < 0)
		return 1;
	double r = newton_cbrt(x);
	assert(!isnan(r));
	printf("{\"x\":%g,\"cbrt\":%.12g,\"libm\":%.12g,\"errno\":%d}\n", x, r, cbrt(x), errno);
	return 0;
}
