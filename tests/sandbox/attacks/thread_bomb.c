/* Threads until refused: the pids limit caps them. */
#include "attack.h"
#include <pthread.h>
static void *idle(void *a)
{
	(void)a;
	for (;;)
		pause();
	return NULL;
}
int main(void)
{
	int n = 0, r = 0;
	pthread_t t;
	while (n < 10000 && (r = pthread_create(&t, NULL, idle, NULL)) == 0)
		n++;
	printf("threads=%d error=%s\n", n, r ? strerrorname_np(r) : "none");
	fflush(stdout);
	_exit(0);
}
