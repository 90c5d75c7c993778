/*
 * tests/analyzer/test_hints.c: cmocka tests of what a refusal tells the
 * agent: every rule has a hint, the symbol-specific hints name the allowed
 * alternative (system, fopen of a host path, socket, a call through a
 * pointer, getenv, read) on a real analysis, the hint reaches the JSON and
 * SARIF shapes, and one analysis reports every finding: a refused #include
 * does not stop the checks of the rest of the file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyzer/internal.h"

#include <string.h>

static tg_report *analyze(const char *src)
{
	tg_report *r = NULL;
	tg_analyze_opts o = { 0 };
	o.sdk_include_dir = TG_ANALYZER_TEST_DIR "/fake_sdk";
	assert_int_equal(tg_analyze(&r, NULL, "t.c", src, strlen(src), &o), 0);
	assert_non_null(r);
	return r;
}

static const tg_finding *find(const tg_report *r, const char *rule, const char *symbol)
{
	size_t i;
	for (i = 0; i < r->nfindings; i++)
		if (strcmp(r->findings[i].rule, rule) == 0 &&
		    (!symbol || (r->findings[i].symbol && !strcmp(r->findings[i].symbol, symbol))))
			return &r->findings[i];
	return NULL;
}

static void test_every_rule_has_a_hint(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < tg_nrules; i++) {
		const char *h = tg_hint_for(tg_rules[i].id, NULL);
		assert_non_null(h);
		assert_true(strlen(h) > 8);
	}
}

/* source, rule, symbol (or NULL), a piece the hint must contain */
static const char *const cases[][4] = {
	{ "#include <stdlib.h>\nint main(void) { return system(\"ls\"); }\n", "process", "system",
	  "compute the result in the tool" },
	{ "#include <stdio.h>\nint main(void) { FILE *f = popen(\"ls\", \"r\"); return f != 0; }\n",
	  "process", "popen", "no processes" },
	{ "#include <stdio.h>\nint main(void) { FILE *f = fopen(\"/etc/passwd\", \"r\"); return f != 0; }\n",
	  "file_access", "fopen", "stdin" },
	{ "#include <stdio.h>\nint main(void) { FILE *f = fopen(\"/etc/passwd\", \"r\"); return f != 0; }\n",
	  "file_access", "fopen", "workspace:read" },
	{ "int socket(int, int, int);\nint main(void) { return socket(2, 1, 0); }\n", "network",
	  "socket", "tg_call_tool" },
	{ "static int one(void) { return 1; }\nint main(void) { int (*f)(void) = one; return f(); }\n",
	  "indirect_call", NULL, "call the function directly or use a switch" },
	{ "#include <stdlib.h>\nint main(void) { return getenv(\"HOME\") != 0; }\n", "environment",
	  "getenv", "JSON input" },
	{ "long read(int, void *, unsigned long);\nint main(void) { char b[4]; return (int)read(5, b, 4); }\n",
	  "file_access", "read", "fread" },
	{ "#include <setjmp.h>\nint main(void) { return 0; }\n", "include", NULL, "allowed headers" },
	{ "int main(void) { return ({ 1; }); }\n", "stmt_expr", NULL, "static inline function" },
};

static void test_symbol_hints_on_real_findings(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < TG_ARRAY_SIZE(cases); i++) {
		tg_report *r = analyze(cases[i][0]);
		const tg_finding *f = find(r, cases[i][1], cases[i][2]);
		if (!f)
			fail_msg("case %zu: no %s finding", i, cases[i][1]);
		assert_false(r->pass);
		assert_non_null(f->hint);
		if (!strstr(f->hint, cases[i][3]))
			fail_msg("case %zu: hint \"%s\" lacks \"%s\"", i, f->hint, cases[i][3]);
		tg_report_free(r);
	}
}

static void test_hint_in_json_and_sarif(void **state)
{
	tg_report *r = analyze("#include <stdlib.h>\nint main(void) { return system(\"id\"); }\n");
	json_t *j = NULL, *s = NULL, *f, *res;
	(void)state;
	assert_int_equal(tg_report_to_json(&j, r), 0);
	f = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "rule")), "process");
	assert_non_null(strstr(json_string_value(json_object_get(f, "hint")), "no processes"));
	assert_int_equal(tg_report_to_sarif(&s, r, "t.c"), 0);
	res = json_array_get(
		json_object_get(json_array_get(json_object_get(s, "runs"), 0), "results"), 0);
	assert_non_null(strstr(
		json_string_value(json_object_get(json_object_get(res, "properties"), "hint")),
		"no processes"));
	json_decref(j);
	json_decref(s);
	tg_report_free(r);
}

/* The example: a refused include, a system() and a socket() call:
 * all three in one report, at their own lines. */
static void test_one_pass_after_refused_include(void **state)
{
	static const char src[] = "#include <stdlib.h>\n"
				  "#include <sys/socket.h>\n"
				  "int main(void)\n"
				  "{\n"
				  "\tint s = socket(2, 1, 0);\n"
				  "\treturn system(\"id\") + s;\n"
				  "}\n";
	tg_report *r = analyze(src);
	const tg_finding *inc = find(r, "include", NULL), *net = find(r, "network", "socket"),
			 *proc = find(r, "process", "system");
	(void)state;
	assert_false(r->pass);
	assert_non_null(inc);
	assert_non_null(net);
	assert_non_null(proc);
	assert_int_equal(inc->line, 2);
	assert_int_equal(net->line, 5);
	assert_int_equal(proc->line, 6);
	assert_non_null(strstr(inc->message, "sys/socket.h"));
	tg_report_free(r);
}

/* A refused include spread over spliced lines and followed by a block
 * comment is blanked whole: the following code keeps its line numbers. */
static void test_one_pass_positions_after_splice(void **state)
{
	static const char src[] = "#include <stdlib.h>\n"
				  "#include \\\n"
				  "  <unistd_not_here.h> /* a comment\n"
				  "  that goes on */\n"
				  "int main(void) { return system(\"x\"); }\n";
	tg_report *r = analyze(src);
	const tg_finding *proc = find(r, "process", "system");
	(void)state;
	assert_non_null(find(r, "include", NULL));
	assert_non_null(proc);
	assert_int_equal(proc->line, 5);
	assert_null(find(r, "parse", NULL));
	tg_report_free(r);
}

/* _Pragma, __has_include and reserved identifiers still keep the source
 * from the parser (pasting could build a pragma the lexer never sees). */
static void test_hard_findings_still_block(void **state)
{
	tg_report *r = analyze("#define CAT(a,b) a##b\nCAT(_Pra,gma)(\"GCC poison x\")\n"
			       "#include <stdlib.h>\nint main(void) { return system(\"x\"); }\n");
	(void)state;
	assert_non_null(find(r, "reserved_identifier", NULL));
	assert_null(find(r, "process", NULL));
	tg_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_rule_has_a_hint),
		cmocka_unit_test(test_symbol_hints_on_real_findings),
		cmocka_unit_test(test_hint_in_json_and_sarif),
		cmocka_unit_test(test_one_pass_after_refused_include),
		cmocka_unit_test(test_one_pass_positions_after_splice),
		cmocka_unit_test(test_hard_findings_still_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
