/* A denied syscall from a second thread takes the whole process down. */
#include "attack.h"
#include <pthread.h>
static void *bad(void *a)
{
	(void)a;
	syscall(SYS_getpriority, 0, 0);
	return NULL;
}
int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, bad, NULL) != 0) {
		puts("no thread");
		return 1;
	}
	pthread_join(t, NULL);
	puts("survived");
	return 0;
}
