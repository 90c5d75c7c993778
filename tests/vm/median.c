/*
 * tests/vm/median.c: `vm_median N PROG [ARG...]` runs PROG N times, one
 * after the other (stdin from /dev/null, stdout and stderr to /dev/null),
 * timing each run from fork to reap with CLOCK_MONOTONIC, and prints
 * "median_us MIN_US MEDIAN_US MAX_US" on one line. The VM's busybox has no
 * clock finer than 10 ms and no hyperfine: this is the VM suite's stopwatch
 * for the sandbox exec versus bwrap figure. Linked statically (it runs in
 * the initramfs). Exit 0 when every run exited 0, 1 when one did not (its
 * status is printed on stderr), 2 for bad arguments or a failed fork/exec.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	static uint64_t us[RUNS_MAX];
	char *end = NULL;
	long n;
	int i, bad = 0;

	if (argc < 3)
		goto usage;
	n = strtol(argv[1], &end, 10);
	if (*end || n < 1 || n > RUNS_MAX)
		goto usage;
	for (i = 0; i < n; i++) {
		uint64_t t0 = now_us();
		int st;
		pid_t pid = fork();

		if (pid < 0) {
			perror("vm_median: fork");
			return 2;
		}
		if (pid == 0) {
			int fd = open("/dev/null", O_RDWR);
			if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(126);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid) {
			perror("vm_median: waitpid");
			return 2;
		}
		us[i] = now_us() - t0;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "vm_median: run %d: status 0x%x\n", i + 1, (unsigned)st);
			bad = 1;
		}
	}
	qsort(us, (size_t)n, sizeof(us[0]), cmp_u64);
	printf("median_us %llu %llu %llu\n", (unsigned long long)us[0],
	       (unsigned long long)(n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2),
	       (unsigned long long)us[n - 1]);
	return bad;
usage:
	fprintf(stderr, "usage: vm_median N PROG [ARG...] (1 <= N <= %d)\n", RUNS_MAX);
	return 2;
}
