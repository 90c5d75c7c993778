/*
 * tests/vm/median.c: `vm_median N PROG [ARG...] [::: PROG2 [ARG...]]` runs
 * PROG N times, one after the other (stdin from /dev/null, stdout and stderr
 * to /dev/null), timing each run from fork to reap with CLOCK_MONOTONIC, and
 * prints "median_us MIN_US MEDIAN_US MAX_US" on one line. With a second
 * command after ":::" the two alternate (PROG, PROG2, PROG, ...: a burst of
 * host load then slows both alike) and a second line gives PROG2's figures.
 * The VM's busybox has no clock finer than 10 ms and no hyperfine: this is
 * the VM suite's stopwatch for the sandbox exec versus bwrap figure. Linked
 * statically (it runs in the initramfs). Exit 0 when every run exited 0, 1
 * when one did not (its status is printed on stderr), 2 for bad arguments or
 * a failed fork/exec.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS_MAX 1000

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One timed run of argv[0] in microseconds; *bad set when it failed. */
static int run_once(uint64_t *out, char **argv, int *bad)
{
	uint64_t t0 = now_us();
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		perror("vm_median: fork");
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid) {
		perror("vm_median: waitpid");
		return -1;
	}
	*out = now_us() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "vm_median: %s: status 0x%x\n", argv[0], (unsigned)st);
		*bad = 1;
	}
	return 0;
}

static void print_median(uint64_t *us, long n)
{
	qsort(us, (size_t)n, sizeof(us[0]), cmp_u64);
	printf("median_us %llu %llu %llu\n", (unsigned long long)us[0],
	       (unsigned long long)(n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2),
	       (unsigned long long)us[n - 1]);
}

int main(int argc, char **argv)
{
	static uint64_t us[2][RUNS_MAX];
	char **cmd[2] = { NULL, NULL };
	char *end = NULL;
	long n;
	int i, k, ncmd = 1, bad = 0;

	if (argc < 3)
		goto usage;
	n = strtol(argv[1], &end, 10);
	if (*end || n < 1 || n > RUNS_MAX)
		goto usage;
	cmd[0] = argv + 2;
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], ":::") == 0) {
			argv[i] = NULL; /* ends the first command's argv */
			if (i == 2 || i + 1 >= argc)
				goto usage;
			cmd[1] = argv + i + 1;
			ncmd = 2;
			break;
		}
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < ncmd; k++)
			if (run_once(&us[k][i], cmd[k], &bad) < 0)
				return 2;
	for (k = 0; k < ncmd; k++)
		print_median(us[k], n);
	return bad;
usage:
	fprintf(stderr, "usage: vm_median N PROG [ARG...] [::: PROG2 [ARG...]] (1 <= N <= %d)\n",
		RUNS_MAX);
	return 2;
}
