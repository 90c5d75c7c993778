// expect: pass
/* survey: seeded pseudo-random numbers */
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	unsigned seed = 42;
	int r = rand_r(&seed) % 6 + 1;
	srand(7);
	printf("{\"die\":%d,\"ok\":%s}\n", r, rand() >= 0 ? "true" : "false");
	return 0;
}
