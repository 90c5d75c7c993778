/*
 * bench/growth/bench_growth.c: `bench_growth HOME NTOOLS NVERSIONS`: a home
 * the size of a long-lived host, made quickly through the library: NTOOLS
 * active tools of one version each, and one tool "hist" with NVERSIONS
 * versions, put into the store as the pipeline commits them (tool.json,
 * tool.c, the analysis report, the test results, the status trailers; fsync
 * off), then indexed by tg_registry_open. What is not done: analysis, build
 * and tests of each version (real creates cost about a second each;
 * run.sh measures the disk of real creates separately). Prints the store's
 * loose objects and packs.
 */
#include "registry/registry.h"
#include "store/store.h"

#include <string.h>

static int fail(const char *what)
{
	fprintf(stderr, "bench_growth: %s: %s\n", what, tg_error_last()->message);
	return 3;
}

/* Version v of tool, as the pipeline commits it. */
static int put_version(tg_store *s, const char *tool, unsigned v)
{
	tg_store_version *sv = NULL;
	char hash[65], manifest[600], src[400];
	tg_store_file files[4];
	tg_store_trailer tr[4];
	tg_store_put_opts o = { 0 };

	snprintf(src, sizeof(src),
		 "#include <stdio.h>\n/* %s version %u */\nint main(void)\n{\n"
		 "\tputs(\"{\\\"v\\\":%u}\");\n\treturn 0;\n}\n",
		 tool, v, v);
	{
		/* the registry's content hash (registry/build.c) */
		tg_sha256 h;
		tg_sha256_init(&h);
		tg_sha256_update(&h, "toolgate-build-v1\n", 18);
		tg_sha256_update(&h, src, strlen(src));
		tg_sha256_final_hex(&h, hash);
	}
	snprintf(manifest, sizeof(manifest),
		 "{\"name\":\"%s\",\"description\":\"a small tool of the growth benchmark\","
		 "\"input_schema\":{\"type\":\"object\"},\"source\":\"tool.c\","
		 "\"tests\":[{\"name\":\"t\",\"args\":{},\"expect\":{\"v\":%u}}],"
		 "\"limits\":{\"timeout_ms\":2000,\"memory_mb\":64},\"capabilities\":[]}",
		 tool, v);
	files[0] = (tg_store_file){ "tool.json", manifest, strlen(manifest) };
	files[1] = (tg_store_file){ "tool.c", src, strlen(src) };
	files[2] = (tg_store_file){ "analysis.json", "{\"verdict\":\"pass\",\"findings\":[]}", 33 };
	files[3] = (tg_store_file){ "tests.json",
				    "[{\"name\":\"t\",\"passed\":true,\"detail\":\"ok\"}]", 43 };
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
	if (tg_store_put(&sv, s, &o) < 0)
		return -1;
	tg_store_version_free(sv);
	return tg_store_set_active(s, tool, v, v - 1, "bench");
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *store = NULL;
	tg_registry *r = NULL;
	tg_store *s = NULL;
	size_t loose = 0, packs = 0;
	int ntools, nver, i;

	if (argc != 4 || (ntools = atoi(argv[2])) < 0 || (nver = atoi(argv[3])) < 0) {
		fprintf(stderr, "usage: bench_growth HOME NTOOLS NVERSIONS\n");
		return 2;
	}
	store = tg_path_join(argv[1], "store.git");
	if (!store)
		return 3;
	tg_store_set_fsync(0);
	if (tg_registry_open(&r, argv[1], 1) < 0)
		return fail("init");
	tg_registry_free(r);
	if (tg_store_open(&s, store, 0) < 0)
		return fail("store");
	for (i = 0; i < ntools; i++) {
		char name[32];
		snprintf(name, sizeof(name), "tool_%05d", i);
		if (put_version(s, name, 1) < 0)
			return fail("put");
	}
	for (i = 1; i <= nver; i++)
		if (put_version(s, "hist", (unsigned)i) < 0)
			return fail("put");
	if (tg_store_object_counts(s, &loose, &packs) < 0)
		return fail("count");
	tg_store_free(s);
	if (tg_registry_open(&r, argv[1], 0) < 0) /* the re-index */
		return fail("open");
	tg_registry_free(r);
	printf("loose %zu packs %zu\n", loose, packs);
	return 0;
}
