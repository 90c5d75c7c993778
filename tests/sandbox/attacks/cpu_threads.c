/* Spin on every core: CPU time grows faster than wall time, so the CPU
 * rlimit (timeout + 1 s) is reached before the wall-clock timeout. */
#include "attack.h"
#include <pthread.h>
static void *spin(void *a)
{
	volatile unsigned long n = 0;
	(void)a;
	for (;;)
		n++;
	return NULL;
}
int main(void)
{
	pthread_t t;
	int i;
	for (i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, spin, NULL) != 0)
			return 1;
	spin(NULL);
	return 0;
}
