/*
 * bench/registry/bench_call.c: `bench_registry_call HOME TOOL ARGS_JSON N [BINARY]`:
 * the call path measured inside one process, as `toolgate serve` runs it
 * (no process start, no libclang load): medians over N runs of
 *   bare   the tool's cached binary spawned directly, args on stdin
 *   sbx    tg_sandbox_run of that binary (the sandbox alone)
 *   call   tg_registry_call (schema check + sandbox run + call log)
 *   open   tg_registry_open + tg_registry_free (what every CLI command pays)
 */
#include "registry/registry.h"
#include "sandbox/sandbox.h"

#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

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
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int run_bare(const char *bin, const char *argsfile)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)"tool", NULL };
	pid_t pid;
	int st = 0;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, argsfile, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, bin, &fa, NULL, argv, environ) != 0)
		return -1;
	posix_spawn_file_actions_destroy(&fa);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	tg_registry *r = NULL;
	tg_actor who = { "bench", NULL };
	json_t *args = NULL, *show = NULL;
	char *bin = NULL, argsfile[] = "/tmp/tg_bench_args_XXXXXX";
	double *t;
	int n, i, fd;

	if (argc < 5 || argc > 6 || (n = atoi(argv[4])) < 1) {
		fprintf(stderr, "usage: bench_registry_call HOME TOOL ARGS_JSON N [BINARY]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t || tg_json_parse(&args, argv[3], strlen(argv[3]), NULL) < 0 ||
	    tg_registry_open(&r, argv[1], 0) < 0 || tg_registry_show(&show, r, argv[2], 0) < 0) {
		fprintf(stderr, "bench_registry_call: %s\n", tg_error_last()->message);
		return 3;
	}
	/* the tool's built binary (run.sh finds it: cache/ folders are named
	 * by the cache key, not the content hash) */
	if (argc == 6 ? !(bin = strdup(argv[5]))
		      : asprintf(&bin, "%s/cache/%s/tool", argv[1],
				 json_string_value(json_object_get(show, "content_hash"))) < 0)
		return 3;
	fd = mkstemp(argsfile);
	if (fd < 0 || write(fd, argv[3], strlen(argv[3])) < 0)
		return 3;
	close(fd);

	for (i = -3; i < n; i++) {
		double s = now_ms();
		if (run_bare(bin, argsfile) < 0) {
			fprintf(stderr, "bench_registry_call: the bare binary failed\n");
			return 3;
		}
		if (i >= 0)
			t[i] = now_ms() - s;
	}
	printf("bare   %.2f\n", median(t, n));

	for (i = -3; i < n; i++) {
		tg_sandbox_opts o = { 0 };
		tg_run_result *rr = NULL;
		double s = now_ms();
		o.program = bin;
		o.stdin_data = argv[3];
		o.stdin_len = strlen(argv[3]);
		if (tg_sandbox_run(&rr, &o) < 0 || rr->reason != TG_REASON_EXITED) {
			fprintf(stderr, "bench_registry_call: sandbox run failed\n");
			return 3;
		}
		tg_run_result_free(rr);
		if (i >= 0)
			t[i] = now_ms() - s;
	}
	printf("sbx    %.2f\n", median(t, n));

	for (i = -3; i < n; i++) {
		json_t *res = NULL;
		double s = now_ms();
		if (tg_registry_call(&res, r, argv[2], args, &who) < 0 ||
		    !json_is_true(json_object_get(res, "ok"))) {
			fprintf(stderr, "bench_registry_call: call failed\n");
			return 3;
		}
		json_decref(res);
		if (i >= 0)
			t[i] = now_ms() - s;
	}
	printf("call   %.2f\n", median(t, n));
	tg_registry_free(r);

	for (i = -3; i < n; i++) {
		double s = now_ms();
		if (tg_registry_open(&r, argv[1], 0) < 0)
			return 3;
		tg_registry_free(r);
		if (i >= 0)
			t[i] = now_ms() - s;
	}
	printf("open   %.2f\n", median(t, n));
	unlink(argsfile);
	json_decref(args);
	json_decref(show);
	free(bin);
	free(t);
	return 0;
}
