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

int main(int argc, char **argv)
{
	tg_sandbox_opts o;
	double *t;
	long n, i;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 2 || n > 100000) {
		fprintf(stderr, "usage: bench_sandbox_loop N PROG (N >= 2)\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 3;
	memset(&o, 0, sizeof(o));
	o.program = argv[2];
	for (i = 0; i < n; i++) {
		tg_run_result *r = NULL;
		double t0 = now_ms();
		if (tg_sandbox_run(&r, &o) < 0) {
			fprintf(stderr, "bench_sandbox_loop: %s\n", tg_error_last()->message);
			free(t);
			return 3;
		}
		t[i] = now_ms() - t0;
		if (r->reason != TG_REASON_EXITED || r->exit_code != 0) {
			fprintf(stderr, "bench_sandbox_loop: run %ld ended with %s\n", i,
				tg_reason_name(r->reason));
			tg_run_result_free(r);
			free(t);
			return 1;
		}
		tg_run_result_free(r);
	}
	printf("first %.3f ms\n", t[0]);
	qsort(t + 1, (size_t)(n - 1), sizeof(*t), cmp);
	printf("later (n=%ld) median %.3f ms, min %.3f, p90 %.3f\n", n - 1, t[1 + (n - 1) / 2],
	       t[1], t[1 + (n - 1) * 9 / 10]);
	free(t);
	return 0;
}
