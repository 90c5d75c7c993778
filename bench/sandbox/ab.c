/*
 * bench/sandbox/ab.c: `bench_sandbox_ab N CMD_A... :: CMD_B...`: runs two
 * commands alternately N times each (stdin and stdout on /dev/null) and
 * prints the median, quartiles and p99 of each, in milliseconds, and the
 * ratio of the medians (B over A). On a shared
 * machine whose load drifts, interleaving is the only fair way to compare
 * two builds (e.g. `toolgate sandbox exec -- hello` of main and of a
 * branch); hyperfine runs one command after the other.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One run of av; its wall time, or a negative value if it failed. */
static double run(char **av)
{
	posix_spawn_file_actions_t fa;
	double t0, t;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	t0 = now_ms();
	if (posix_spawn(&pid, av[0], &fa, NULL, av, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	if (waitpid(pid, &st, 0) != pid)
		st = -1;
	t = now_ms() - t0;
	posix_spawn_file_actions_destroy(&fa);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

int main(int argc, char **argv)
{
	char **a = argv + 2, **b = NULL;
	double *ta, *tb;
	long n, i;

	if (argc < 5 || (n = strtol(argv[1], NULL, 10)) < 1 || n > 100000)
		goto usage;
	for (i = 2; i < argc; i++)
		if (strcmp(argv[i], "::") == 0) {
			argv[i] = NULL;
			b = argv + i + 1;
			break;
		}
	if (!b || !a[0] || !b[0])
		goto usage;
	ta = calloc((size_t)n, sizeof(*ta));
	tb = calloc((size_t)n, sizeof(*tb));
	if (!ta || !tb)
		return 3;
	for (i = 0; i < n; i++) { /* alternate which goes first */
		double x = i & 1 ? run(b) : run(a), y = i & 1 ? run(a) : run(b);
		ta[i] = i & 1 ? y : x;
		tb[i] = i & 1 ? x : y;
		if (ta[i] < 0 || tb[i] < 0) {
			fprintf(stderr, "bench_sandbox_ab: %s failed\n", ta[i] < 0 ? a[0] : b[0]);
			return 1;
		}
	}
	qsort(ta, (size_t)n, sizeof(*ta), cmp);
	qsort(tb, (size_t)n, sizeof(*tb), cmp);
	printf("A median %.3f ms (p25 %.3f, p75 %.3f, p99 %.3f)\n", ta[n / 2], ta[n / 4],
	       ta[3 * n / 4], ta[(n * 99) / 100]);
	printf("B median %.3f ms (p25 %.3f, p75 %.3f, p99 %.3f)\n", tb[n / 2], tb[n / 4],
	       tb[3 * n / 4], tb[(n * 99) / 100]);
	printf("B/A median ratio %.2f\n", ta[n / 2] > 0 ? tb[n / 2] / ta[n / 2] : 0.0);
	free(ta);
	free(tb);
	return 0;
usage:
	fprintf(stderr, "usage: bench_sandbox_ab N CMD_A [ARG...] :: CMD_B [ARG...]\n");
	return 2;
}
