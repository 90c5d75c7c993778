/* Two of these run at once in the process's shared network namespace
 * (sandbox/netns.c; test_sandbox_net.c, sandbox_net_shared): each tries to
 * reach the other (a unix socket, abstract or not, needs socket() or
 * socketpair(); /proc; a marker in /tmp; signals to every process it can
 * see), holding on for a second so that the two overlap. stderr: the
 * run's start and end in CLOCK_REALTIME milliseconds, for the test to
 * check the overlap. argv[1]: this run's name. */
#include "attack.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>

int main(int argc, char **argv)
{
	int sv[2];
	long long t0 = attack_now_ms();

	if (argc < 2)
		return 2;
	report("socket", socket(AF_UNIX, SOCK_STREAM, 0));
	report("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	mark_and_look(argv[1]);
	report("proc", open("/proc/self/ns/net", O_RDONLY));
	report("kill_all", kill(-1, 0));
	report("kill_2", kill(2, 0));
	fprintf(stderr, "%lld %lld\n", t0, attack_now_ms());
	return 0;
}
