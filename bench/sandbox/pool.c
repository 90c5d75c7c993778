/*
 * bench/sandbox/pool.c: `bench_sandbox_pool N PROG`: in one process, a
 * static program run four ways, in interleaved blocks of 20 (the load of
 * this shared machine drifts), 1 ms apart (a client's round trip; the pool
 * refills in it; GAP_US=N for another gap): a bare posix_spawn (stdout
 * through a pipe, read to EOF, then waitpid), tg_sandbox_run as `toolgate
 * serve` did before the pool (net namespace prepared), tg_sandbox_run from
 * the pool (size 2; POOL=N for another), and `bwrap --unshare-all` with
 * the binds of bench/sandbox/run.sh spawned the same way as the bare run
 * (when bwrap is installed). Prints the median and p99 of each and the
 * ratios, in milliseconds. Built with -DTG_SANDBOX_PROFILE=ON it also
 * prints the median time of each step of the pooled runs.
 */
#include "sandbox/sandbox.h"
#ifdef TG_SANDBOX_PROFILE
#include "sandbox/internal.h"
#endif

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

static const char *bwrap_path;

static int spawn(const char *prog, char **argv)
{
	char buf[4096];
	posix_spawn_file_actions_t fa;
	int p[2], st;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0)
		return -1;
	(void)prog;
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	while (read(p[0], buf, sizeof(buf)) > 0)
		;
	close(p[0]);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int bare(const char *prog)
{
	char *argv[] = { (char *)prog, NULL };
	return spawn(prog, argv);
}

/* bwrap with the binds of bench/sandbox/run.sh */
static int bwrap(const char *prog)
{
	char bind[4096];
	char *argv[] = { (char *)bwrap_path, "--unshare-all", "--die-with-parent", "--new-session",
			 "--clearenv", "--hostname", "toolgate", "--ro-bind", bind, "/tool",
			 "--dev", "/dev", "--tmpfs", "/tmp", "/tool", NULL };
	snprintf(bind, sizeof(bind), "%s", prog);
	return spawn(prog, argv);
}

#ifdef TG_SANDBOX_PROFILE
/* steps of the pooled runs: the time from the step before, in us */
static const char *const step_name[SBX_PROF_N + 1] = {
	"tg_sandbox_run to the pool", "take an entry", "cgroup + rlimits", "stdin memfd, program fd", "sendmsg",
	"waiter woken, exec..exit..pipes EOF", "reaped",
	"result built",
	"back to the caller",
};
static double *step_us[SBX_PROF_N + 1];
static long nstep;

static uint64_t rt_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* t0, t1: the realtime before and after tg_sandbox_run */
static void profile_take(long n, uint64_t t0, uint64_t t1)
{
	int i;
	uint64_t prev;

	if (!sbx_prof || nstep >= n)
		return;
	for (i = 0; i < 2; i++)
		if (!step_us[i * SBX_PROF_N] &&
		    !(step_us[i * SBX_PROF_N] = calloc((size_t)n, sizeof(double))))
			return;
	step_us[0][nstep] = (double)(int64_t)(sbx_prof[0] - t0) / 1e3;
	step_us[SBX_PROF_N][nstep] = (double)(int64_t)(t1 - sbx_prof[SBX_PROF_RESULT]) / 1e3;
	prev = sbx_prof[0];
	for (i = 1; i < SBX_PROF_N; i++) {
		if (!step_us[i] && !(step_us[i] = calloc((size_t)n, sizeof(double))))
			return;
		step_us[i][nstep] = sbx_prof[i] && prev ? (double)(int64_t)(sbx_prof[i] - prev) / 1e3 : 0;
		if (sbx_prof[i])
			prev = sbx_prof[i];
	}
	nstep++;
}
#endif

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

/* Wait (at most 2 s) until the pool holds n ready entries. */
static void pool_filled(int n)
{
	int k;

	for (k = 0; k < 2000 && tg_sandbox_pool_ready(NULL, 0) < n; k++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

int main(int argc, char **argv)
{
	static const char *const names[4] = { "bare posix_spawn", "sandboxed, no pool",
					       "sandboxed, from the pool", "bwrap --unshare-all" };
	double *t[4];
	const char *g = getenv("GAP_US"), *ps = getenv("POOL");
	long n, k[4] = { 0, 0, 0, 0 }, i, gap_us = g ? strtol(g, NULL, 10) : 1000;
	int way, j, ways, pool = ps ? atoi(ps) : 2;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 20 || n > 100000 || pool < 1) {
		fprintf(stderr, "usage: bench_sandbox_pool N PROG (N >= 20)\n");
		return 2;
	}
	n -= n % 20;
	if (access("/usr/bin/bwrap", X_OK) == 0)
		bwrap_path = "/usr/bin/bwrap";
	ways = bwrap_path ? 4 : 3;
	for (way = 0; way < ways; way++)
		if (!(t[way] = calloc((size_t)n, sizeof(double))))
			return 3;
	tg_sandbox_prepare(1);
	/* warm up: the process's one-time costs (cgroup lookup, first thread) */
	if (sandboxed(argv[2]) < 0 || bare(argv[2]) < 0 || (bwrap_path && bwrap(argv[2]) < 0))
		return 1;
	for (i = 0; i < n; i += 20) {
		for (way = 0; way < ways; way++) {
			if (way == 2) {
				if (tg_sandbox_pool_start((unsigned)pool, NULL) < 0) {
					fprintf(stderr, "bench_sandbox_pool: %s\n", tg_error_last()->message);
					return 3;
				}
				pool_filled(pool);
			}
			for (j = 0; j < 20; j++) {
				double t0;
				int rc;
#ifdef TG_SANDBOX_PROFILE
				uint64_t rt0;
#endif
				nanosleep(&(struct timespec){ gap_us / 1000000, (gap_us % 1000000) * 1000 }, NULL);
#ifdef TG_SANDBOX_PROFILE
				rt0 = rt_ns();
#endif
				t0 = now_ms();
				rc = way == 0 ? bare(argv[2]) : way == 3 ? bwrap(argv[2]) : sandboxed(argv[2]);
				if (rc < 0)
					return 1;
				t[way][k[way]++] = now_ms() - t0;
#ifdef TG_SANDBOX_PROFILE
				if (way == 2)
					profile_take(n, rt0, rt_ns());
#endif
			}
			if (way == 2)
				tg_sandbox_pool_stop();
			/* let the block's deferred kernel work (namespace teardown
			 * in kworkers) settle before the next way's block */
			nanosleep(&(struct timespec){ 0, 50 * 1000000 }, NULL);
		}
	}
	printf("%ld runs each, %.1f ms apart, interleaved in blocks of 20 (pool of %d):\n", n,
	       gap_us / 1e3, pool);
	report(names[0], t[0], n, 0, 0);
	{
		double bm = t[0][n / 2], bp = t[0][(n * 99) / 100];
		for (way = 1; way < ways; way++)
			report(names[way], t[way], n, bm, bp);
	}
#ifdef TG_SANDBOX_PROFILE
	printf("steps of the pooled runs (median, p90 of the time since the step before):\n");
	for (way = 0; way <= SBX_PROF_N && nstep > 0; way++) {
		qsort(step_us[way], (size_t)nstep, sizeof(double), cmp);
		printf("  %-26s %8.1f us %8.1f us\n", step_name[way], step_us[way][nstep / 2],
		       step_us[way][(nstep * 9) / 10]);
	}
#endif
	tg_sandbox_prepare(0);
	return 0;
}
