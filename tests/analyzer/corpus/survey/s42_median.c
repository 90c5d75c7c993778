// expect: pass
/* survey: median with qsort on doubles */
#include <stdio.h>
#include <stdlib.h>
static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}
int main(void)
{
	double v[] = { 3.5, 1.25, 9, 4 };
	qsort(v, 4, sizeof(double), dcmp);
	printf("{\"median\":%g}\n", (v[1] + v[2]) / 2);
	return 0;
}
