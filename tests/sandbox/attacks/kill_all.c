/* kill(-1, SIGKILL) and kill of low pids: only the sandbox's own namespace is reachable. */
#include "attack.h"
#include <signal.h>
int main(void)
{
	signal(SIGTERM, SIG_IGN);
	report("kill(-1)", kill(-1, SIGKILL));
	report("kill(2)", kill(2, SIGKILL));
	printf("pid=%d ppid=%d\n", getpid(), getppid());
	return 0;
}
