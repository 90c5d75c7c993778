/* Calls that fail with a clean errno instead of a kill. */
#include "attack.h"
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
int main(void)
{
	char args[88] = { 0 };
	report("clone3", syscall(435, args, sizeof(args)));
	report("clone(CLONE_NEWUSER)", syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
	report("flock", flock(1, LOCK_EX));
	report("arch_prctl(CET)", syscall(SYS_arch_prctl, 0x3001, 0));
	return 0;
}
