/*
 * bench/store/bench_store.c: how the store's costs grow with the number of
 * other tools. One store grows to each size in turn (N tools x 10 versions,
 * written with fsync OFF to keep the build to a minute or two); at each size
 * it measures, as medians:
 *   put      one new version of an existing tool (fsync on, then off)
 *   get      one version's metadata (tg_store_get_version, version 5)
 *   file     one file of a version (tg_store_get_file)
 *   history  one tool's history (tg_store_list_versions, ~10 versions)
 *   active   the active pointer (tg_store_get_active)
 *   list     every tool name (tg_store_list_tools; this one is O(tools))
 * and prints them side by side with the ratio largest/smallest size. The
 * "build step" line is the time to grow the store from the previous size.
 * Usage: bench_store [SIZES], SIZES a comma list (default 100,1000,10000).
 */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define VERSIONS 10
#define MAX_SIZES 8

enum { M_PUT_FSYNC, M_PUT, M_GET, M_FILE, M_HISTORY, M_ACTIVE, M_LIST, M_COUNT };
static const char *const m_names[M_COUNT] = {
	"put (fsync on)", "put (fsync off)", "get_version", "get_file", "history (list_versions)",
	"get_active", "list_tools",
};
static const int m_reps[M_COUNT] = { 40, 100, 300, 300, 300, 300, 15 };

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_store: %s: %s\n", what, tg_error_last()->message);
	exit(3);
}

static void put(tg_store *s, unsigned tool, unsigned n)
{
	char name[32], src[96], manifest[96];
	tg_store_file files[4];
	tg_store_trailer tr[3] = { { "Toolgate-Verdict", "pass" }, { "Toolgate-Content-Hash", "sha256:0" },
				   { "Toolgate-Submitter", "bench" } };
	tg_store_put_opts o;

	snprintf(name, sizeof(name), "tool_%05u", tool);
	snprintf(src, sizeof(src), "#include <stdio.h>\nint main(void) { puts(\"%u %u\"); return 0; }\n", tool, n);
	snprintf(manifest, sizeof(manifest), "{\"name\":\"%s\",\"description\":\"bench\"}\n", name);
	files[0] = (tg_store_file){ "tool.json", manifest, strlen(manifest) };
	files[1] = (tg_store_file){ "tool.c", src, strlen(src) };
	files[2] = (tg_store_file){ "analysis.json", "{\"verdict\":\"pass\",\"findings\":[]}\n", 33 };
	files[3] = (tg_store_file){ "tests.json", "[]\n", 3 };
	memset(&o, 0, sizeof(o));
	o.tool = name;
	o.files = files;
	o.nfiles = 4;
	o.trailers = tr;
	o.ntrailers = 3;
	if (tg_store_put(NULL, s, &o) < 0)
		die("put");
}

/* Each run touches a different tool (a random permutation), so every
 * figure is a first access through a fresh handle: libgit2's object cache
 * does not hide the cost, the OS page cache is warm. */
static double measure(tg_store *s, int m, unsigned ntools, unsigned *counter)
{
	int reps = m_reps[m] < (int)ntools || m == M_LIST ? m_reps[m] : (int)ntools;
	double *v = calloc((size_t)reps, sizeof(double));
	unsigned *perm = calloc(ntools, sizeof(unsigned));
	char name[32];
	int i;
	unsigned k;
	double med;

	if (!v || !perm)
		exit(3);
	for (k = 0; k < ntools; k++)
		perm[k] = k;
	for (k = ntools - 1; k > 0; k--) {
		unsigned j = (unsigned)rand() % (k + 1), tmp = perm[k];
		perm[k] = perm[j];
		perm[j] = tmp;
	}
	for (i = 0; i < reps; i++) {
		unsigned t = perm[(unsigned)i % ntools];
		double t0;
		snprintf(name, sizeof(name), "tool_%05u", t);
		t0 = now_us();
		switch (m) {
		case M_PUT_FSYNC:
		case M_PUT:
			put(s, t, ++*counter);
			break;
		case M_GET: {
			tg_store_version *ver = NULL;
			if (tg_store_get_version(&ver, s, name, 5) < 0)
				die("get_version");
			tg_store_version_free(ver);
			break;
		}
		case M_FILE: {
			char *data = NULL;
			size_t len;
			if (tg_store_get_file(&data, &len, s, name, 5, "tool.c") < 0)
				die("get_file");
			free(data);
			break;
		}
		case M_HISTORY: {
			tg_store_version_list *l = NULL;
			if (tg_store_list_versions(&l, s, name) < 0)
				die("list_versions");
			tg_store_version_list_free(l);
			break;
		}
		case M_ACTIVE: {
			unsigned av;
			if (tg_store_get_active(&av, NULL, s, name) < 0)
				die("get_active");
			break;
		}
		case M_LIST: {
			char **names = NULL;
			size_t n = 0;
			if (tg_store_list_tools(&names, &n, s) < 0 || n != ntools)
				die("list_tools");
			tg_store_free_names(names, n);
			break;
		}
		}
		v[i] = now_us() - t0;
	}
	med = median(v, reps);
	free(v);
	free(perm);
	return med;
}

static void print_us(double us)
{
	if (us >= 1000)
		printf(" %10.2f ms", us / 1000);
	else
		printf(" %10.1f us", us);
}

int main(int argc, char **argv)
{
	unsigned sizes[MAX_SIZES], nsizes = 0, built = 0, counter = 1000, i, t;
	double res[MAX_SIZES][M_COUNT], build_s[MAX_SIZES];
	const char *base = getenv("TMPDIR");
	char dir[256], repo[300], cmd[400];
	char *list = strdup(argc > 1 ? argv[1] : "100,1000,10000"), *tok, *save = NULL;
	tg_store *s = NULL;
	int m;

	for (tok = strtok_r(list, ",", &save); tok && nsizes < MAX_SIZES; tok = strtok_r(NULL, ",", &save)) {
		unsigned v = (unsigned)strtoul(tok, NULL, 10);
		if (v == 0 || v > 99999 || (nsizes && v <= sizes[nsizes - 1])) {
			fprintf(stderr, "bench_store: sizes must grow, 1..99999\n");
			return 2;
		}
		sizes[nsizes++] = v;
	}
	free(list);
	snprintf(dir, sizeof(dir), "%s/tg_bench_store_XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 3;
	}
	snprintf(repo, sizeof(repo), "%s/store.git", dir);
	srand(42);
	printf("store bench: %u versions per tool; the store is built with fsync OFF (bench only),\n"
	       "measured with fsync on and off for put; medians of 15-300 runs, each on a\n"
	       "different tool through a fresh handle. Store in %s\n",
	       VERSIONS, dir);
	fflush(stdout);
	for (i = 0; i < nsizes; i++) {
		double t0 = now_us();
		unsigned v;
		tg_store_set_fsync(0);
		if (!s && tg_store_open(&s, repo, 1) < 0)
			die("open");
		for (t = built; t < sizes[i]; t++)
			for (v = 1; v <= VERSIONS; v++)
				put(s, t, v);
		for (t = built; t < sizes[i]; t++) {
			char name[32];
			snprintf(name, sizeof(name), "tool_%05u", t);
			if (tg_store_set_active(s, name, VERSIONS, 0, "bench") < 0)
				die("set_active");
		}
		build_s[i] = (now_us() - t0) / 1e6;
		built = sizes[i];
		/* a fresh handle, as a new process would have */
		tg_store_free(s);
		if (tg_store_open(&s, repo, 0) < 0)
			die("reopen");
		for (m = 0; m < M_COUNT; m++) {
			/* a fresh handle per figure (libgit2 also reads the fsync
			 * setting when a repository is opened) */
			tg_store_set_fsync(m == M_PUT_FSYNC);
			tg_store_free(s);
			if (tg_store_open(&s, repo, 0) < 0)
				die("reopen");
			res[i][m] = measure(s, m, sizes[i], &counter);
		}
		fprintf(stderr, "bench_store: %u tools done (built in %.1f s)\n", sizes[i], build_s[i]);
	}
	tg_store_free(s);

	printf("%-26s", "tools");
	for (i = 0; i < nsizes; i++)
		printf(" %13u", sizes[i]);
	printf("   ratio %u/%u\n", sizes[nsizes - 1], sizes[0]);
	for (m = 0; m < M_COUNT; m++) {
		printf("%-26s", m_names[m]);
		for (i = 0; i < nsizes; i++)
			print_us(res[i][m]);
		printf("   %8.2f\n", res[nsizes - 1][m] / res[0][m]);
	}
	printf("%-26s", "build step (fsync off)");
	for (i = 0; i < nsizes; i++)
		printf(" %11.1f s", build_s[i]);
	printf("\n");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_store: could not remove %s\n", dir);
	return 0;
}
