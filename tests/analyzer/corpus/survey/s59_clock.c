// expect: pass
/* survey: elapsed CPU time with clock and clock_gettime */
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec a, b;
	clock_t c0 = clock();
	clock_gettime(CLOCK_MONOTONIC, &a);
	volatile double x = 0;
	for (int i = 0; i < 1000; i++)
		x += i;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("{\"ok\":%s}\n", (b.tv_sec >= a.tv_sec && clock() >= c0) ? "true" : "false");
	return 0;
}
