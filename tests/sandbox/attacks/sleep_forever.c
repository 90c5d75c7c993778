/* Sleep forever, ignoring what can be ignored. */
#include "attack.h"
#include <signal.h>
#include <time.h>
int main(void)
{
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (;;)
		nanosleep(&(struct timespec){ 3600, 0 }, NULL);
}
