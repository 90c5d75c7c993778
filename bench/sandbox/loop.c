/*
 * bench/sandbox/loop.c: `bench_sandbox_loop N PROG`: N tg_sandbox_run()
 * calls of a static program in one process (what the registry does), timing
 * each with a monotonic clock. Prints the first run (which pays the one-time
 * costs of the process) and the median, minimum and 90th percentile of the
 * others, in milliseconds.
 */
#include "sandbox/sandbox.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* n runs of o; t[i] the time of run i; gap_us between runs. */
static int runs(double *t, long n, const tg_sandbox_opts *o, long gap_us)
{
	long i;

	for (i = 0; i < n; i++) {
		tg_run_result *r = NULL;
		double t0;
		if (gap_us)
			nanosleep(&(struct timespec){ 0, gap_us * 1000 }, NULL);
		t0 = now_ms();
		if (tg_sandbox_run(&r, o) < 0) {
			fprintf(stderr, "bench_sandbox_loop: %s\n", tg_error_last()->message);
			return 3;
		}
		t[i] = now_ms() - t0;
		if (r->reason != TG_REASON_EXITED || r->exit_code != 0) {
			fprintf(stderr, "bench_sandbox_loop: run %ld ended with %s\n", i,
				tg_reason_name(r->reason));
			tg_run_result_free(r);
			return 1;
		}
		tg_run_result_free(r);
	}
	return 0;
}

static void report(const char *what, double *t, long n)
{
	qsort(t + 1, (size_t)(n - 1), sizeof(*t), cmp);
	printf("%s: later (n=%ld) median %.3f ms, min %.3f, p90 %.3f\n", what, n - 1,
	       t[1 + (n - 1) / 2], t[1], t[1 + (n - 1) * 9 / 10]);
}

/* bench_sandbox_loop N PROG: N runs in one process (first run, then the
 * steady state); then, with 1 ms between runs (a client's round trip), N
 * runs as they are and N runs with tg_sandbox_prepare (toolgate serve). */
int main(int argc, char **argv)
{
	tg_sandbox_opts o;
	double *t;
	long n;
	int rc;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 2 || n > 100000) {
		fprintf(stderr, "usage: bench_sandbox_loop N PROG (N >= 2)\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 3;
	memset(&o, 0, sizeof(o));
	o.program = argv[2];
	if ((rc = runs(t, n, &o, 0)) != 0)
		goto out;
	printf("first %.3f ms\n", t[0]);
	report("back to back", t, n);
	if ((rc = runs(t, n, &o, 1000)) != 0)
		goto out;
	report("1 ms apart", t, n);
	tg_sandbox_prepare(1);
	if ((rc = runs(t, n, &o, 1000)) != 0)
		goto out;
	report("1 ms apart, prepared", t, n);
	tg_sandbox_prepare(0);
out:
	free(t);
	return rc;
}
