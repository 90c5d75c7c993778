// expect: pass
/* survey: float.h and limits.h constants */
#include <float.h>
#include <limits.h>
#include <stdio.h>
int main(void)
{
	printf("{\"eps\":%g,\"imax\":%d,\"dig\":%d}\n", DBL_EPSILON, INT_MAX, DBL_DIG);
	return 0;
}
