/*
 * bench/analyzer/bench_analyzer.c: time tg_analyze() per file inside one
 * process (the policy is built once; libclang is loaded once), which leaves
 * out the fixed process start and library load that `toolgate check` pays.
 * Usage: bench_analyzer FILE [REPS]; prints "median_ms min_ms" of REPS runs.
 */
#include "analyzer/analyzer.h"

#include <string.h>
#include <time.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	char *src = NULL;
	size_t len = 0;
	int reps = argc > 2 ? atoi(argv[2]) : 30, i;
	double *t;
	tg_policy *p = NULL;

	if (argc < 2 || reps < 1 || reps > 100000)
		return 2;
	if (tg_file_read(&src, &len, argv[1], 1 << 20) < 0 || tg_policy_default(&p) < 0) {
		fprintf(stderr, "bench_analyzer: %s\n", tg_error_last()->message);
		return 2;
	}
	t = calloc((size_t)reps, sizeof(*t));
	if (!t)
		return 3;
	for (i = -3; i < reps; i++) { /* 3 warm-up runs */
		tg_report *r = NULL;
		double t0 = now_ms();
		if (tg_analyze(&r, p, argv[1], src, len, NULL) < 0) {
			fprintf(stderr, "bench_analyzer: %s\n", tg_error_last()->message);
			return 3;
		}
		if (i >= 0)
			t[i] = now_ms() - t0;
		if (!r->pass)
			fprintf(stderr, "bench_analyzer: warning: %s is rejected\n", argv[1]);
		tg_report_free(r);
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_d);
	printf("%.2f %.2f\n", t[reps / 2], t[0]);
	free(t);
	free(src);
	tg_policy_free(p);
	return 0;
}
