// expect: pass
/* refused before issue 14 -- include: <fenv.h> was outside the include allowlist */
/* survey: rounding mode with fenv.h */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
int main(void)
{
	int old = fegetround();
	fesetround(FE_UPWARD);
	double r = rint(2.1);
	fesetround(old);
	feclearexcept(FE_ALL_EXCEPT);
	printf("{\"r\":%.1f}\n", r);
	return 0;
}
