// expect: pass
/* survey: math.h functions */
#include <math.h>
#include <stdio.h>
int main(void)
{
	double x = 2.0;
	printf("{\"sqrt\":%.4f,\"log\":%.4f,\"pow\":%.1f,\"hyp\":%.1f,\"nan\":%d}\n", sqrt(x), log(x),
	       pow(x, 10), hypot(3, 4), isnan(NAN) ? 1 : 0);
	return 0;
}
