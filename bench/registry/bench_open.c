/*
 * bench/registry/bench_open.c: `bench_registry_open DIR NTOOLS N`: what
 * tg_registry_open costs as the toolset grows. Makes a home under DIR with
 * NTOOLS active tools (one version each, put into the store directly, fsync
 * off), lets the re-index record the store fingerprint, then prints medians
 * over N runs (ms) of
 *   fp      tg_store_fingerprint of the store alone
 *   fast    tg_registry_open + free when the fingerprint matches (no libgit2)
 *   slow    the same with the recorded fingerprint removed before each run:
 *           libgit2 start-up and the re-index check of every tool (what every
 *           open cost before the fingerprint)
 */
#include "registry/registry.h"
#include "store/store.h"

#include <sqlite3.h>
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
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int fail(const char *what)
{
	fprintf(stderr, "bench_registry_open: %s: %s\n", what, tg_error_last()->message);
	return 3;
}

/* One version of tool as the pipeline commits it, made active. */
static int put_tool(tg_store *s, const char *tool)
{
	tg_store_version *v = NULL;
	char hash[65], manifest[400], src[100];
	tg_store_file files[4];
	tg_store_trailer tr[4];
	tg_store_put_opts o = { 0 };

	snprintf(src, sizeof(src), "int main(void) { return 0; } /* %s */\n", tool);
	tg_sha256_hex(hash, src, strlen(src));
	snprintf(manifest, sizeof(manifest),
		 "{\"name\":\"%s\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},"
		 "\"source\":\"tool.c\",\"tests\":[{\"name\":\"t\",\"args\":{},\"expect\":1}]}",
		 tool);
	files[0] = (tg_store_file){ "tool.json", manifest, strlen(manifest) };
	files[1] = (tg_store_file){ "tool.c", src, strlen(src) };
	files[2] = (tg_store_file){ "analysis.json", "{\"verdict\":\"pass\",\"findings\":[]}", 33 };
	files[3] = (tg_store_file){ "tests.json", "[]", 2 };
	tr[0] = (tg_store_trailer){ "Toolgate-Status", "active" };
	tr[1] = (tg_store_trailer){ "Toolgate-Verdict", "pass" };
	tr[2] = (tg_store_trailer){ "Toolgate-Content-Hash", hash };
	tr[3] = (tg_store_trailer){ "Toolgate-Submitter", "bench" };
	o.tool = tool;
	o.files = files;
	o.nfiles = 4;
	o.trailers = tr;
	o.ntrailers = 4;
	o.subject = "bench";
	if (tg_store_put(&v, s, &o) < 0)
		return -1;
	tg_store_version_free(v);
	return tg_store_set_active(s, tool, 1, 0, "bench");
}

static int forget_fingerprint(const char *home)
{
	_cleanup_free_ char *p = tg_path_join(home, "registry.db");
	sqlite3 *db = NULL;
	int rc;

	if (!p || sqlite3_open(p, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, "DELETE FROM meta WHERE key = 'store_fingerprint'", NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *home = NULL, *store = NULL;
	tg_registry *r = NULL;
	tg_store *s = NULL;
	char fp[65];
	double *t;
	int ntools, n, i;

	if (argc != 4 || (ntools = atoi(argv[2])) < 0 || (n = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: bench_registry_open DIR NTOOLS N\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	home = tg_path_join(argv[1], "home");
	store = home ? tg_path_join(home, "store.git") : NULL;
	if (!t || !store)
		return 3;
	tg_store_set_fsync(0);
	if (tg_registry_open(&r, home, 1) < 0)
		return fail("init");
	tg_registry_free(r);
	if (tg_store_open(&s, store, 0) < 0)
		return fail("store");
	for (i = 0; i < ntools; i++) {
		char name[32];
		snprintf(name, sizeof(name), "tool_%05d", i);
		if (put_tool(s, name) < 0)
			return fail("put");
	}
	tg_store_free(s);
	/* index everything, then wait out the fingerprint's 2 s racy window so
	 * that the value recorded next is the lasting one */
	if (tg_registry_open(&r, home, 0) < 0)
		return fail("open");
	tg_registry_free(r);
	usleep(2200 * 1000);
	if (tg_registry_open(&r, home, 0) < 0)
		return fail("open");
	tg_registry_free(r);

	for (i = -3; i < n; i++) {
		double st = now_ms();
		if (tg_store_fingerprint(fp, store) != 0)
			return fail("fingerprint");
		if (i >= 0)
			t[i] = now_ms() - st;
	}
	printf("fp     %.3f\n", median(t, n));
	for (i = -3; i < n; i++) {
		double st = now_ms();
		if (tg_registry_open(&r, home, 0) < 0)
			return fail("open");
		if (tg_registry_store_opened(r)) {
			fprintf(stderr, "bench_registry_open: the fast path opened the store\n");
			return 3;
		}
		tg_registry_free(r);
		if (i >= 0)
			t[i] = now_ms() - st;
	}
	printf("fast   %.3f\n", median(t, n));
	for (i = -3; i < n; i++) {
		double st;
		if (forget_fingerprint(home) < 0)
			return fail("sqlite");
		st = now_ms();
		if (tg_registry_open(&r, home, 0) < 0)
			return fail("open");
		tg_registry_free(r);
		if (i >= 0)
			t[i] = now_ms() - st;
	}
	printf("slow   %.3f\n", median(t, n));
	free(t);
	return 0;
}
