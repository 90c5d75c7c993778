/*
 * tests/sdk/test_examples.c SRC_DIR OUT_DIR: keeps examples/ from rotting.
 * For every examples/<name>/tool.json: the manifest parses (common's strict
 * JSON), its input schema passes tg_schema_check and every test's args pass
 * tg_schema_validate; then tool.c is compiled natively with the tool flags
 * and each manifest test is run, comparing stdout with "expect" through
 * jansson's json_equal (as the registry does) or requiring a non-zero exit
 * for "expect_error". The buggy example must fail at least one of its tests;
 * the malicious one (weather) is checked but never compiled or run.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "registry/schema/schema.h"
#include "run.h"

static int failures;

#define FAIL(...) (fprintf(stderr, "FAIL: " __VA_ARGS__), fputc('\n', stderr), failures++)

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run the manifest's tests against the binary; returns how many failed. */
static int run_tests(const char *name, const char *bin, const json_t *tests)
{
	size_t i;
	int failed = 0;
	for (i = 0; i < json_array_size(tests); i++) {
		const json_t *t = json_array_get(tests, i);
		const char *tname = json_string_value(json_object_get(t, "name"));
		const json_t *expect = json_object_get(t, "expect");
		int want_error = json_is_true(json_object_get(t, "expect_error"));
		char *in = tg_json_dump(json_object_get(t, "args"));
		json_t *got = NULL;
		sdk_run r;
		int ok;
		if (!in || sdk_run_prog(&r, bin, in, strlen(in)) < 0) {
			FAIL("%s: cannot run %s", name, bin);
			free(in);
			return 1;
		}
		if (want_error) {
			ok = r.status != 0;
		} else {
			ok = r.status == 0 && tg_json_parse(&got, r.out, r.out_len, NULL) == 0 &&
			     json_equal(got, expect);
		}
		printf("  %s %s / %s%s%s", ok ? "ok  " : "FAIL", name, tname ? tname : "?",
		       ok ? "" : ": exit ", ok ? "\n" : "");
		if (!ok)
			printf("%d, stdout %.300s stderr %.300s\n", r.status, r.out, r.err);
		failed += !ok;
		json_decref(got);
		sdk_run_free(&r);
		free(in);
	}
	return failed;
}

static void check_example(const char *src, const char *out, const char *name)
{
	char path[4096], bin[4096], cmd[12288];
	json_t *m = NULL, *tests, *schema;
	size_t i;
	int failed;

	snprintf(path, sizeof(path), "%s/examples/%s/tool.json", src, name);
	if (tg_json_parse_file(&m, path, NULL) < 0) {
		FAIL("%s: %s", path, tg_error_last()->message);
		return;
	}
	schema = json_object_get(m, "input_schema");
	tests = json_object_get(m, "tests");
	if (!json_is_string(json_object_get(m, "name")) || !tg_name_valid(json_string_value(json_object_get(m, "name"))))
		FAIL("%s: bad name", name);
	if (!json_is_string(json_object_get(m, "source")) || strcmp(json_string_value(json_object_get(m, "source")), "tool.c"))
		FAIL("%s: source must be \"tool.c\"", name);
	if (tg_schema_check(schema) < 0)
		FAIL("%s: input_schema: %s", name, tg_error_last()->message);
	if (json_array_size(tests) < 1 || json_array_size(tests) > 5)
		FAIL("%s: %zu tests (want 2-5, or more than 0 for weather)", name, json_array_size(tests));
	for (i = 0; i < json_array_size(tests); i++)
		if (tg_schema_validate(schema, json_object_get(json_array_get(tests, i), "args")) < 0)
			FAIL("%s: test %zu: %s", name, i, tg_error_last()->message);
	if (!strcmp(name, "weather")) { /* malicious: for the analyzer only */
		printf("  skip %s (malicious: never built or run here)\n", name);
		json_decref(m);
		return;
	}
	if (json_array_size(tests) < 2)
		FAIL("%s: fewer than 2 tests", name);
	snprintf(bin, sizeof(bin), "%s/example_%s", out, name);
	snprintf(cmd, sizeof(cmd),
		 "clang-14 -std=gnu11 -O2 -D_FORTIFY_SOURCE=2 -Wall -Wextra -Werror -I'%s/sdk' -o '%s' '%s/examples/%s/tool.c'",
		 src, bin, src, name);
	if (system(cmd) != 0) {
		FAIL("%s: does not compile: %s", name, cmd);
		json_decref(m);
		return;
	}
	if (json_array_size(json_object_get(m, "calls")) > 0) {
		/* its calls need toolgate's bridge on fd 3: tests/bridge/cli_bridge.sh */
		printf("  skip %s (calls other tools: run through toolgate in tests/bridge)\n", name);
		json_decref(m);
		return;
	}
	failed = run_tests(name, bin, tests);
	if (!strcmp(name, "word_count_v2_buggy")) {
		if (failed == 0)
			FAIL("%s: the buggy example passed all its tests", name);
	} else if (failed) {
		FAIL("%s: %d test(s) failed", name, failed);
	}
	json_decref(m);
}

int main(int argc, char **argv)
{
	char dir[4096], *names[256];
	size_t n = 0, i;
	struct dirent *e;
	DIR *d;
	if (argc != 3) {
		fprintf(stderr, "usage: %s SRC_DIR OUT_DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/examples", argv[1]);
	if (!(d = opendir(dir))) {
		perror(dir);
		return 1;
	}
	while ((e = readdir(d)) && n < 256) {
		char p[4600];
		snprintf(p, sizeof(p), "%s/%s/tool.json", dir, e->d_name);
		if (e->d_name[0] != '.' && access(p, F_OK) == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	if (n < 8)
		FAIL("only %zu examples", n);
	if (tg_mkdir_p(argv[2], 0755) < 0)
		FAIL("%s: %s", argv[2], tg_error_last()->message);
	for (i = 0; i < n; i++) {
		check_example(argv[1], argv[2], names[i]);
		free(names[i]);
	}
	printf("%zu examples, %d failure(s)\n", n, failures);
	return failures ? 1 : 0;
}
