/* fork, vfork and clone(SIGCHLD) all fail with EPERM: no second process. */
#include "attack.h"
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
int main(void)
{
	int i, ok = 0;
	for (i = 0; i < 1000; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p < 0) {
			report("fork", -1);
			break;
		}
		ok++;
	}
	report("vfork", syscall(SYS_vfork));
	report("clone", syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
	printf("forked=%d\n", ok);
	return 0;
}
