/*
 * bench/bridge/bench_bridge.c: `bench_bridge HOME PROG RUNS`: the per-call
 * overhead of the tool bridge. A trivial tool (echo0: reads its arguments,
 * prints {}) is registered in a fresh home; then
 *   direct   tg_registry_call("echo0") 20 times in this process (the
 *            call path a bridged call ends in: schema, sandbox run, call log)
 *   bridged  one run of PROG (bench_prog, 20 calls) in the real sandbox
 *            with reg_bridge_run() serving fd 3; PROG times each call from
 *            its side (frame out .. reply in)
 * alternating, RUNS rounds of both (so both see the same load),
 * and prints the median and p99 of each, the overhead (bridged - direct)
 * and the ratio of the medians. POOL=N: with a sandbox pool of N (as
 * `toolgate serve` keeps), for the program's run and every tool run.
 */
#include "registry/exec/exec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CALLS 20

static const char tool_src[] = "#include <toolgate/tool.h>\n"
			       "int main(void)\n{\n"
			       "\ttg_tool_args *a = tg_tool_read_args();\n"
			       "\ttg_out_object_begin();\n\ttg_out_end();\n"
			       "\ttg_tool_args_free(a);\n\treturn 0;\n}\n";
static const char tool_json[] =
	"{\"name\":\"echo0\",\"description\":\"returns {}\",\"input_schema\":{\"type\":\"object\"},"
	"\"tests\":[{\"name\":\"t\",\"args\":{},\"expect\":{}}]}";

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	qsort(v, n, sizeof(*v), cmp);
	return v[i < n ? i : n - 1];
}

int main(int argc, char **argv)
{
	tg_registry *r = NULL;
	json_t *m, *res = NULL, *args = json_object(), *caps, *limits;
	tg_submission sub;
	size_t runs, n = 0, i, nb = 0;
	double *direct, *bridged, *paired;

	if (argc != 4 || (runs = strtoul(argv[3], NULL, 10)) == 0) {
		fprintf(stderr, "usage: bench_bridge HOME PROG RUNS\n");
		return 2;
	}
	if (tg_registry_open(&r, argv[1], 1) < 0)
		goto fail;
	m = json_loads(tool_json, 0, NULL);
	sub.manifest = m;
	sub.source = tool_src;
	sub.source_len = strlen(tool_src);
	if (tg_registry_create(&res, r, &sub, NULL) < 0)
		goto fail;
	if (strcmp(json_string_value(json_object_get(res, "status")), "active") != 0) {
		fprintf(stderr, "bench_bridge: echo0 is %s\n",
			json_string_value(json_object_get(res, "status")));
		return 1;
	}
	json_decref(res);
	json_decref(m);
	if (getenv("POOL") && atoi(getenv("POOL")) > 0) {
		const tg_config *cfg = tg_registry_config(r);
		tg_sandbox_opts ceil = { .memory_mb = cfg->max_memory_mb,
					 .cpu_percent = cfg->cpu_percent };
		if (tg_sandbox_pool_start((unsigned)atoi(getenv("POOL")), &ceil) < 0)
			goto fail;
		printf("sandbox pool of %d\n", atoi(getenv("POOL")));
	}
	direct = calloc(runs * CALLS, sizeof(*direct));
	bridged = calloc(runs * CALLS, sizeof(*bridged));
	paired = calloc(runs, sizeof(*paired));
	caps = json_loads("[\"tools:echo0\"]", 0, NULL);
	limits = json_loads("{\"max_tool_calls\":20}", 0, NULL);
	/* warm the cache and the page cache */
	for (i = 0; i < 3; i++) {
		if (tg_registry_call(&res, r, "echo0", args, NULL) < 0)
			goto fail;
		json_decref(res);
	}
	/* direct and bridged alternate, 20 calls each, so that both see the
	 * same load on a shared machine; each round's difference of medians
	 * is kept too (the paired overhead) */
	for (i = 0; i < runs; i++) {
		const char *pargv[] = { "bench_prog", "20", NULL };
		tg_sandbox_opts so = { 0 };
		tg_run_result *rr = NULL;
		json_t *arr, *v;
		size_t k, n0 = n, nb0 = nb;
		reg_bridge b;

		for (k = 0; k < CALLS; k++) {
			double t0 = now_us();
			if (tg_registry_call(&res, r, "echo0", args, NULL) < 0)
				goto fail;
			direct[n++] = now_us() - t0;
			if (!json_is_true(json_object_get(res, "ok")))
				return fprintf(stderr, "bench_bridge: echo0 failed\n"), 1;
			json_decref(res);
		}
		reg_bridge_init(&b, r, NULL, "bench", 1, caps, limits, NULL);
		so.program = argv[2];
		so.argv = pargv;
		so.timeout_ms = 60000;
		b.deadline_ms = tg_now_ms() + so.timeout_ms;
		if (reg_bridge_run(&rr, &b, &so) < 0)
			goto fail;
		arr = rr->out ? json_loads(rr->out, 0, NULL) : NULL;
		if (rr->reason != TG_REASON_EXITED || rr->exit_code != 0 || json_array_size(arr) != CALLS) {
			fprintf(stderr, "bench_bridge: bench_prog: %s exit %d: %s\n",
				tg_reason_name(rr->reason), rr->exit_code, rr->out ? rr->out : "");
			return 1;
		}
		json_array_foreach(arr, k, v)
			bridged[nb++] = json_number_value(v);
		json_decref(arr);
		tg_run_result_free(rr);
		{
			double dd[CALLS], bb[CALLS];
			memcpy(dd, direct + n0, sizeof(dd));
			memcpy(bb, bridged + nb0, sizeof(bb));
			paired[i] = pct(bb, CALLS, 0.5) - pct(dd, CALLS, 0.5);
		}
	}
	{
		double dm = pct(direct, n, 0.5), d99 = pct(direct, n, 0.99);
		double bm = pct(bridged, nb, 0.5), b99 = pct(bridged, nb, 0.99);
		printf("calls %zu direct, %zu bridged (%zu runs of %d)\n", n, nb, runs, CALLS);
		printf("direct  tg_registry_call: median %.3f ms, p99 %.3f ms\n", dm / 1e3, d99 / 1e3);
		printf("bridged (seen by the program): median %.3f ms, p99 %.3f ms\n", bm / 1e3,
		       b99 / 1e3);
		printf("overhead per call: median %.3f ms, p99 %.3f ms (target <= 1 ms)\n",
		       (bm - dm) / 1e3, (b99 - d99) / 1e3);
		printf("ratio bridged/direct (medians): %.3f\n", bm / dm);
		printf("paired overhead (median over rounds of the round's bridged - direct "
		       "median): %.3f ms\n", pct(paired, runs, 0.5) / 1e3);
	}
	tg_sandbox_pool_stop();
	tg_registry_free(r);
	return 0;
fail:
	fprintf(stderr, "bench_bridge: %s\n", tg_error_last()->message);
	return 3;
}
