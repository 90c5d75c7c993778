// expect: pass
/* Mean, variance, min and max of the numbers on stdin. */
#include <stdio.h>
#include <math.h>
#include <float.h>

int main(void)
{
	double x, sum = 0, sumsq = 0, lo = DBL_MAX, hi = -DBL_MAX;
	long n = 0;

	while (scanf("%lf", &x) == 1) {
		sum += x;
		sumsq += x * x;
		lo = fmin(lo, x);
		hi = fmax(hi, x);
		n++;
	}
	if (n == 0) {
		fputs("{\"error\":\"no input\"}\n", stderr);
		return 1;
	}
	double mean = sum / (double)n;
	double var = sumsq / (double)n - mean * mean;
	printf("{\"n\":%ld,\"mean\":%.6g,\"stddev\":%.6g,\"min\":%.6g,\"max\":%.6g}\n", n, mean,
	       sqrt(var > 0 ? var : 0), lo, hi);
	return 0;
}
