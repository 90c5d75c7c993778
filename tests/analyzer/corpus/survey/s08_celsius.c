// expect: pass
/* survey: temperature conversion with math.h rounding */
#include <math.h>
#include <stdio.h>
int main(void)
{
	double f = 98.6, c = (f - 32) * 5 / 9;
	printf("{\"celsius\":%.1f,\"rounded\":%ld}\n", c, lround(c));
	return 0;
}
