/*
 * bench/analyzer/bench_analyzer.c: time tg_analyze() per file inside one
 * process (the policy is built once; libclang is loaded once), which leaves
 * out the fixed process start and library load that `toolgate check` pays.
 * Usage: bench_analyzer FILE [REPS]; prints "median_ms min_ms cpu_ms": the
 * wall-clock median and minimum of REPS runs and the mean CPU time (parent
 * and parse child, user + system) per run, which suffers less from load.
 */
#include "analyzer/analyzer.h"

#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* CPU time of this process and its waited-for children, in ms */
static double cpu_ms(void)
{
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec +
			b.ru_stime.tv_sec) * 1e3 +
	       (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
			b.ru_stime.tv_usec) / 1e3;
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
	double *t, cpu0 = 0;
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
		if (i == -1)
			cpu0 = cpu_ms();
		if (!r->pass)
			fprintf(stderr, "bench_analyzer: warning: %s is rejected\n", argv[1]);
		tg_report_free(r);
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_d);
	printf("%.2f %.2f %.2f\n", t[reps / 2], t[0], (cpu_ms() - cpu0) / reps);
	free(t);
	free(src);
	tg_policy_free(p);
	return 0;
}
