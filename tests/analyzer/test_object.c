/*
 * tests/analyzer/test_object.c: tg_analyze_object() on objects built here
 * with the build's compiler and code-generation flags (clang-14 -std=gnu11
 * -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong, stack-clash, CET, -fPIE
 * -c; common/cfront.c): fortified benign code passes; system
 * (also through an asm label), weak undefined symbols, ifunc, constructors
 * and destructors are found; malformed and mutated ELF files are refused
 * without crashing (the sanitizer build checks the bounds).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyzer/analyzer.h"

#include <string.h>

static char dir[] = "/tmp/tg_analyzer_obj_XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Compile src into dir/name.o; returns the object path (static buffer). */
static const char *build(const char *name, const char *src)
{
	static char obj[512];
	char c[512], cmd[2048];
	FILE *f;
	snprintf(c, sizeof(c), "%s/%s.c", dir, name);
	snprintf(obj, sizeof(obj), "%s/%s.o", dir, name);
	f = fopen(c, "w");
	assert_non_null(f);
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "clang-14 -std=gnu11 -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection -fcf-protection=full -fPIE -c '%s' -o '%s'",
		 c, obj);
	assert_int_equal(system(cmd), 0);
	return obj;
}

static tg_report *check(const char *obj)
{
	tg_report *r = NULL;
	assert_int_equal(tg_analyze_object(&r, NULL, obj, NULL), 0);
	assert_non_null(r);
	return r;
}

static const tg_finding *find(const tg_report *r, const char *rule, const char *sym)
{
	size_t i;
	for (i = 0; i < r->nfindings; i++)
		if (!strcmp(r->findings[i].rule, rule) &&
		    (!sym || (r->findings[i].symbol && !strcmp(r->findings[i].symbol, sym))))
			return &r->findings[i];
	return NULL;
}

static void test_fortified_benign_passes(void **state)
{
	tg_report *r;
	(void)state;
	r = check(build("benign",
			"#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n#include <math.h>\n"
			"static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n"
			"int main(void) { char b[64], d[16]; int v[3] = {3, 1, 2}, n = 0;\n"
			"  if (!fgets(b, sizeof b, stdin)) return 1; sscanf(b, \"%d\", &n);\n"
			"  memcpy(d, b, sizeof d); snprintf(b, sizeof b, \"%d%s\", n, d);\n"
			"  qsort(v, 3, sizeof v[0], cmp); fprintf(stderr, \"%s\\n\", b);\n"
			"  printf(\"%d %f\\n\", v[0], sqrt((double)n)); return 0; }\n"));
	if (!r->pass) {
		size_t i;
		for (i = 0; i < r->nfindings; i++)
			print_message("%s %s\n", r->findings[i].rule, r->findings[i].message);
	}
	assert_true(r->pass);
	tg_report_free(r);
}

static void test_forbidden_symbols(void **state)
{
	tg_report *r;
	(void)state;
	r = check(build("sys", "#include <stdlib.h>\nint main(void) { return system(\"id\"); }\n"));
	assert_false(r->pass);
	assert_non_null(find(r, "process", "system"));
	tg_report_free(r);
	r = check(build("label", "int run(const char *) __asm__(\"system\");\n"
				 "int main(void) { return run(\"id\"); }\n"));
	assert_non_null(find(r, "process", "system"));
	tg_report_free(r);
	r = check(build("other", "extern int frobnicate(int);\nint main(void) { return frobnicate(1); }\n"));
	assert_non_null(find(r, "not_allowed", "frobnicate"));
	tg_report_free(r);
	r = check(build("env", "extern char **environ;\nint main(void) { return environ != 0; }\n"));
	assert_non_null(find(r, "environment", "environ"));
	tg_report_free(r);
}

static void test_weak_ifunc_and_init(void **state)
{
	tg_report *r;
	(void)state;
	r = check(build("weak", "extern int hook(void) __attribute__((weak));\n"
				"int main(void) { return hook ? hook() : 0; }\n"));
	assert_non_null(find(r, "weak_symbol", "hook"));
	tg_report_free(r);
	r = check(build("ifunc", "static int impl(void) { return 0; }\n"
				 "static void *resolve(void) { return (void *)impl; }\n"
				 "int f(void) __attribute__((ifunc(\"resolve\")));\n"
				 "int main(void) { return f(); }\n"));
	assert_non_null(find(r, "weak_symbol", "f"));
	tg_report_free(r);
	r = check(build("ctor", "#include <stdio.h>\n__attribute__((constructor)) static void e(void) { puts(\"x\"); }\n"
				"__attribute__((destructor)) static void l(void) { puts(\"y\"); }\n"
				"int main(void) { return 0; }\n"));
	assert_false(r->pass);
	assert_non_null(find(r, "init_section", ".init_array"));
	assert_non_null(find(r, "init_section", ".fini_array"));
	tg_report_free(r);
	r = check(build("redef", "#include <stddef.h>\nvoid *malloc(size_t n) { (void)n; return 0; }\n"
				 "int main(void) { return 0; }\n"));
	assert_non_null(find(r, "redefinition", "malloc"));
	tg_report_free(r);
}

static void write_file(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, n, f), n);
	fclose(f);
}

static void test_malformed(void **state)
{
	char path[512];
	tg_report *r = NULL;
	unsigned char junk[128];
	(void)state;
	snprintf(path, sizeof(path), "%s/junk.o", dir);
	memset(junk, 0x41, sizeof(junk));
	write_file(path, junk, sizeof(junk));
	assert_int_equal(tg_analyze_object(&r, NULL, path, NULL), TG_ERR_INVALID);
	assert_null(r);
	write_file(path, "\177ELF", 4);
	assert_int_equal(tg_analyze_object(&r, NULL, path, NULL), TG_ERR_INVALID);
	memcpy(junk, "\177ELF\001\001\001", 7); /* ELF32 */
	write_file(path, junk, sizeof(junk));
	assert_int_equal(tg_analyze_object(&r, NULL, path, NULL), TG_ERR_INVALID);
	assert_true(tg_analyze_object(&r, NULL, "/nonexistent.o", NULL) < 0);
	assert_null(r);
}

/* Flip bytes of a real object many times: every result is a clean report
 * or a clean error. */
static void test_mutations(void **state)
{
	const char *obj = build("mut", "#include <stdio.h>\nint main(void) { return puts(\"hi\"); }\n");
	char *data = NULL, path[512];
	size_t len = 0, i;
	uint32_t seed = 12345;
	(void)state;
	assert_int_equal(tg_file_read(&data, &len, obj, 1 << 20), 0);
	snprintf(path, sizeof(path), "%s/mutated.o", dir);
	for (i = 0; i < 400; i++) {
		char *m = malloc(len);
		tg_report *r = NULL;
		int k, rc;
		assert_non_null(m);
		memcpy(m, data, len);
		for (k = 0; k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			m[at] = (char)(seed >> 16);
		}
		write_file(path, m, i % 7 == 0 ? len / 2 : len);
		rc = tg_analyze_object(&r, NULL, path, NULL);
		assert_true(rc == 0 || rc == TG_ERR_INVALID);
		assert_true((rc == 0) == (r != NULL));
		tg_report_free(r);
		free(m);
	}
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fortified_benign_passes),
		cmocka_unit_test(test_forbidden_symbols),
		cmocka_unit_test(test_weak_ifunc_and_init),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
