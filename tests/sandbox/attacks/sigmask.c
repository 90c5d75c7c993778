/* Print the signals blocked at start and those not at their default action
 * (as hex bit sets, bit n-1 for signal n): what the sandbox's child handed
 * on through execve (test_sandbox_vm.c). */
#include "attack.h"
#include <signal.h>
int main(void)
{
	sigset_t set;
	unsigned long long blocked = 0, ignored = 0;
	int sig;
	if (sigprocmask(SIG_BLOCK, NULL, &set) < 0)
		return 2;
	for (sig = 1; sig <= 64; sig++) {
		struct sigaction sa;
		if (sig < SIGRTMIN || sig > 31) {
			if (sigismember(&set, sig) == 1)
				blocked |= 1ULL << (sig - 1);
		}
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			ignored |= 1ULL << (sig - 1);
	}
	printf("blocked %llx ignored %llx\n", blocked, ignored);
	return 0;
}
