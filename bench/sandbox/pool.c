/*
 * bench/sandbox/pool.c: `bench_sandbox_pool N PROG`: in one process, a
 * static program run three ways, in interleaved blocks of 20 (the load of
 * this shared machine drifts), 1 ms apart (a client's round trip; the pool
 * refills in it; GAP_US=N for another gap): a bare posix_spawn (stdout through a pipe, read to EOF,
 * then waitpid), tg_sandbox_run as `toolgate serve` did before the pool
 * (net namespace prepared), and tg_sandbox_run from the pool (size 2).
 * Prints the median and p99 of each and the ratios, in milliseconds.
 */
#include "sandbox/sandbox.h"

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

static int bare(const char *prog)
{
	char *argv[] = { (char *)prog, NULL }, buf[4096];
	posix_spawn_file_actions_t fa;
	int p[2], st;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawn(&pid, prog, &fa, NULL, argv, environ) != 0)
		return -1;
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	while (read(p[0], buf, sizeof(buf)) > 0)
		;
	close(p[0]);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int sandboxed(const char *prog)
{
	tg_sandbox_opts o;
	tg_run_result *r = NULL;
	int ok;

	memset(&o, 0, sizeof(o));
	o.program = prog;
	if (tg_sandbox_run(&r, &o) < 0) {
		fprintf(stderr, "bench_sandbox_pool: %s\n", tg_error_last()->message);
		return -1;
	}
	ok = r->reason == TG_REASON_EXITED && r->exit_code == 0;
	tg_run_result_free(r);
	return ok ? 0 : -1;
}

static void report(const char *what, double *t, long n, double base_med, double base_p99)
{
	double med, p99;

	qsort(t, (size_t)n, sizeof(*t), cmp);
	med = t[n / 2];
	p99 = t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
	printf("%-28s median %6.3f ms  p99 %6.3f ms", what, med, p99);
	if (base_med > 0)
		printf("  (%.2fx bare, p99 +%.3f ms)", med / base_med, p99 - base_p99);
	printf("\n");
}

int main(int argc, char **argv)
{
	double *t[3];
	const char *g = getenv("GAP_US");
	long n, k[3] = { 0, 0, 0 }, i, gap_us = g ? strtol(g, NULL, 10) : 1000;
	int way, j;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 20 || n > 100000) {
		fprintf(stderr, "usage: bench_sandbox_pool N PROG (N >= 20)\n");
		return 2;
	}
	n -= n % 20;
	for (way = 0; way < 3; way++)
		if (!(t[way] = calloc((size_t)n, sizeof(double))))
			return 3;
	tg_sandbox_prepare(1);
	/* warm up: the process's one-time costs (cgroup lookup, first thread) */
	if (sandboxed(argv[2]) < 0 || bare(argv[2]) < 0)
		return 1;
	for (i = 0; i < n; i += 20) {
		for (way = 0; way < 3; way++) {
			if (way == 2 && tg_sandbox_pool_start(2, NULL) < 0) {
				fprintf(stderr, "bench_sandbox_pool: %s\n", tg_error_last()->message);
				return 3;
			}
			for (j = 0; j < 20; j++) {
				double t0;
				int rc;
				nanosleep(&(struct timespec){ gap_us / 1000000, (gap_us % 1000000) * 1000 }, NULL);
				t0 = now_ms();
				rc = way == 0 ? bare(argv[2]) : sandboxed(argv[2]);
				if (rc < 0)
					return 1;
				t[way][k[way]++] = now_ms() - t0;
			}
			if (way == 2)
				tg_sandbox_pool_stop();
		}
	}
	printf("%ld runs each, %.1f ms apart, interleaved in blocks of 20:\n", n, gap_us / 1e3);
	report("bare posix_spawn", t[0], n, 0, 0);
	{
		double bm = t[0][n / 2], bp = t[0][(n * 99) / 100];
		report("sandboxed, no pool", t[1], n, bm, bp);
		report("sandboxed, from the pool", t[2], n, bm, bp);
	}
	tg_sandbox_prepare(0);
	return 0;
}
