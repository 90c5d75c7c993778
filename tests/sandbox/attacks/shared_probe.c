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

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	char mark[64];
	int sv[2], fd, others = 0;
	long long t0 = now_ms();
	struct dirent *e;
	DIR *d;

	if (argc < 2)
		return 2;
	report("socket", socket(AF_UNIX, SOCK_STREAM, 0));
	report("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	snprintf(mark, sizeof(mark), "/tmp/mark-%s", argv[1]);
	fd = open(mark, O_WRONLY | O_CREAT | O_EXCL, 0644);
	report("mark", fd);
	nanosleep(&(struct timespec){ 1, 0 }, NULL);
	d = opendir("/tmp");
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, mark + 5))
			others++;
	if (d)
		closedir(d);
	printf("tmp_others: %d\n", others);
	report("proc", open("/proc/self/ns/net", O_RDONLY));
	report("kill_all", kill(-1, 0));
	report("kill_2", kill(2, 0));
	fprintf(stderr, "%lld %lld\n", t0, now_ms());
	return 0;
}
