/*
 * tests/analyzer/test_analyzer.c: cmocka unit tests of the analyzer: host
 * file secrecy (a unique secret file included in several ways never appears
 * in any message, also with the pre-scan bypassed so that only the virtual
 * sysroot stands), FIFO includes that would hang if opened, environment
 * scrubbing (CPATH), findings' positions, capabilities, the policy loader,
 * the JSON and SARIF shapes, and the report helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyzer/internal.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char secret_path[128];
static char secret_value[64];
static char fifo_path[128];
static char sdk_dir[4096];

static int setup_files(void **state)
{
	int fd;
	(void)state;
	snprintf(secret_value, sizeof(secret_value), "TGSECRET_%d_%ld", (int)getpid(),
		 (long)tg_now_ms());
	snprintf(secret_path, sizeof(secret_path), "/tmp/tg_analyzer_secret_%d.h", (int)getpid());
	fd = open(secret_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	/* a line that would surface in "unknown type name" diagnostics */
	dprintf(fd, "%s x;\nint %s_y = %s;\n", secret_value, secret_value, secret_value);
	close(fd);
	snprintf(fifo_path, sizeof(fifo_path), "/tmp/tg_analyzer_fifo_%d", (int)getpid());
	unlink(fifo_path);
	if (mkfifo(fifo_path, 0600) < 0)
		return -1;
	snprintf(sdk_dir, sizeof(sdk_dir), "%s/fake_sdk", TG_ANALYZER_TEST_DIR);
	return 0;
}

static int teardown_files(void **state)
{
	(void)state;
	unlink(secret_path);
	unlink(fifo_path);
	return 0;
}

static tg_report *analyze_opts(const char *src, const tg_analyze_opts *o)
{
	tg_report *r = NULL;
	tg_analyze_opts d = { 0 };
	if (!o) {
		d.sdk_include_dir = sdk_dir;
		o = &d;
	}
	assert_int_equal(tg_analyze(&r, NULL, "t.c", src, strlen(src), o), 0);
	assert_non_null(r);
	return r;
}

static tg_report *analyze(const char *src)
{
	return analyze_opts(src, NULL);
}

static int has_rule(const tg_report *r, const char *rule)
{
	size_t i;
	for (i = 0; i < r->nfindings; i++)
		if (strcmp(r->findings[i].rule, rule) == 0)
			return 1;
	return 0;
}

static const tg_finding *find_rule(const tg_report *r, const char *rule)
{
	size_t i;
	for (i = 0; i < r->nfindings; i++)
		if (strcmp(r->findings[i].rule, rule) == 0)
			return &r->findings[i];
	return NULL;
}

static void assert_no_secret(const tg_report *r)
{
	size_t i;
	for (i = 0; i < r->nfindings; i++) {
		assert_null(strstr(r->findings[i].message, secret_value));
		assert_null(strstr(r->findings[i].message, "TGSECRET"));
		if (r->findings[i].symbol)
			assert_null(strstr(r->findings[i].symbol, "TGSECRET"));
	}
}

/* ---- host files --------------------------------------------------------- */

static void test_secret_include_forms(void **state)
{
	char src[1024];
	static const char *const forms[][2] = {
		{ "#include \"", "\"\nint main(void){return 0;}\n" },
		{ "#include <", ">\nint main(void){return 0;}\n" },
		{ "#define H \"", "\"\n#include H\nint main(void){return 0;}\n" },
		{ "#if __has_include(\"", "\")\nint a;\n#endif\nint main(void){return 0;}\n" },
		{ "#include \"/tmp/../tmp/", "\"\nint main(void){return 0;}\n" },
		{ "#define CAT(a,b) a##b\nCAT(_Pra,gma)(\"GCC dependency \\\"",
		  "\\\"\")\nint main(void){return 0;}\n" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < TG_ARRAY_SIZE(forms); i++) {
		tg_report *r;
		snprintf(src, sizeof(src), "%s%s%s", forms[i][0], i == 4 ? secret_path + 5 : secret_path,
			 forms[i][1]);
		r = analyze(src);
		if (i < 5)
			assert_false(r->pass);
		assert_no_secret(r);
		tg_report_free(r);
	}
}

static void run_clang_direct(const char *src, tg_flist *out_rules_only, int *crashed)
{
	tg_policy *p = NULL;
	char *yaml = NULL, ov[] = "/tmp/tg_analyzer_ov_XXXXXX";
	int fd, pfd[2];
	pid_t pid;
	int st;
	char buf[65536];
	ssize_t n, total = 0;

	assert_int_equal(tg_policy_default(&p), 0);
	assert_int_equal(tg_vfs_yaml(&yaml, sdk_dir), 0);
	fd = mkstemp(ov);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		tg_flist l = { 0 };
		tg_clang_job job = { p, src, strlen(src), ov, NULL, 0 };
		char *ans = NULL;
		size_t len = 0;
		close(pfd[0]);
		alarm(10);
		tg_clang_check(&l, &job);
		if (tg_flist_serialize(&ans, &len, &l) == 0)
			(void)!write(pfd[1], ans, len);
		_exit(0);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf + total, sizeof(buf) - 1 - (size_t)total)) > 0)
		total += n;
	buf[total] = 0;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	*crashed = !WIFEXITED(st);
	unlink(ov);
	free(yaml);
	if (!*crashed)
		assert_int_equal(tg_flist_deserialize(out_rules_only, p, buf, (size_t)total), 0);
	tg_policy_free(p);
}

static void test_vfs_blocks_host_files(void **state)
{
	char src[1024];
	const char *targets[] = { secret_path, fifo_path, "/etc/passwd", "/dev/stdin",
				  "/proc/self/environ" };
	size_t i, k;
	(void)state;
	for (i = 0; i < TG_ARRAY_SIZE(targets); i++) {
		tg_flist l = { 0 };
		int crashed = 0;
		uint64_t t0 = tg_now_ms();
		int form;
		for (form = 0; form < 2; form++) {
			if (form == 0)
				snprintf(src, sizeof(src), "#include \"%s\"\nint main(void){return 0;}\n",
					 targets[i]);
			else /* a pragma that opens a file, as a pasted _Pragma would */
				snprintf(src, sizeof(src),
					 "_Pragma(\"GCC dependency \\\"%s\\\"\")\nint main(void){return 0;}\n",
					 targets[i]);
			t0 = tg_now_ms();
			run_clang_direct(src, &l, &crashed);
			assert_false(crashed); /* an opened FIFO would hang until the alarm */
			assert_true(tg_now_ms() - t0 < 8000);
			assert_true(l.n >= 1);
			for (k = 0; k < l.n; k++) {
				assert_string_equal(l.v[k].rule, "parse");
				assert_null(strstr(l.v[k].message, "TGSECRET"));
				assert_null(strstr(l.v[k].message, "root:"));
			}
			tg_flist_free(&l);
		}
	}
}

static void test_fifo_include_does_not_hang(void **state)
{
	char src[512];
	tg_report *r;
	uint64_t t0 = tg_now_ms();
	(void)state;
	snprintf(src, sizeof(src),
		 "#define CAT(a,b) a##b\nCAT(_Pra,gma)(\"GCC dependency \\\"%s\\\"\")\n"
		 "#include \"%s\"\nint main(void){return 0;}\n",
		 fifo_path, fifo_path);
	r = analyze(src);
	assert_false(r->pass);
	assert_true(has_rule(r, "include"));
	assert_true(tg_now_ms() - t0 < 3000);
	tg_report_free(r);
	/* the pasted pragma alone reaches clang: the sysroot must still stop it */
	snprintf(src, sizeof(src),
		 "#define CAT(a,b) a##b\nCAT(_Pra,gma)(\"GCC dependency \\\"%s\\\"\")\n"
		 "int main(void){return 0;}\n",
		 fifo_path);
	t0 = tg_now_ms();
	r = analyze(src);
	assert_true(tg_now_ms() - t0 < 3000);
	assert_false(has_rule(r, "limits"));
	tg_report_free(r);
}

static void test_cpath_is_scrubbed(void **state)
{
	char dir[] = "/tmp/tg_analyzer_cpath_XXXXXX", path[256];
	const char *src = "#include <stdio.h>\nint main(void){ return puts(\"x\") < 0; }\n";
	tg_report *r;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/stdio.h", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("extern int system(const char *);\n#define puts system\n", f);
	fclose(f);
	setenv("CPATH", dir, 1);
	setenv("C_INCLUDE_PATH", dir, 1);
	r = analyze(src);
	unsetenv("CPATH");
	unsetenv("C_INCLUDE_PATH");
	assert_true(r->pass);
	assert_false(has_rule(r, "process"));
	tg_report_free(r);
	unlink(path);
	rmdir(dir);
}

/* ---- findings ----------------------------------------------------------- */

static void test_positions(void **state)
{
	tg_report *r;
	const tg_finding *f;
	(void)state;
	r = analyze("#include <stdlib.h>\n#define RUN system\nint main(void)\n{\n\treturn RUN(\"id\");\n}\n");
	f = find_rule(r, "process");
	assert_non_null(f);
	assert_int_equal(f->line, 5);
	assert_int_equal(f->column, 9);
	assert_string_equal(f->symbol, "system");
	assert_string_equal(f->category, "process");
	assert_int_equal(f->severity, TG_SEV_ERROR);
	tg_report_free(r);
	/* position after a line splice: the original line */
	r = analyze("#include <stdio.h>\nint main(void)\n{\n\treturn 0;\n}\n#inc\\\nlude \"/x\"\n");
	f = find_rule(r, "include");
	assert_non_null(f);
	assert_int_equal(f->line, 6); /* the body line */
	assert_int_equal(f->column, 1);
	tg_report_free(r);
}

static void test_capabilities(void **state)
{
	const char *rd = "#include <stdio.h>\nint main(void){ FILE *f = fopen(\"/workspace/a.txt\", \"r\"); return f == 0; }\n";
	const char *wr = "#include <stdio.h>\nint main(void){ FILE *f = fopen(\"/workspace/a.txt\", \"w\"); return f == 0; }\n";
	const char *caps_r[] = { "workspace:read" }, *caps_w[] = { "workspace:write" };
	tg_analyze_opts o = { 0 };
	tg_report *r;
	(void)state;
	o.sdk_include_dir = sdk_dir;
	r = analyze_opts(rd, &o);
	assert_false(r->pass);
	assert_true(has_rule(r, "file_access"));
	tg_report_free(r);
	o.capabilities = caps_r;
	o.ncapabilities = 1;
	r = analyze_opts(rd, &o);
	assert_true(r->pass);
	tg_report_free(r);
	r = analyze_opts(wr, &o);
	assert_false(r->pass);
	tg_report_free(r);
	o.capabilities = caps_w;
	r = analyze_opts(wr, &o);
	assert_true(r->pass);
	tg_report_free(r);
	r = analyze_opts("#include <stdio.h>\nint main(void){ FILE *f = fopen(\"/workspace/../etc/passwd\", \"r\"); return f == 0; }\n", &o);
	assert_false(r->pass);
	tg_report_free(r);
}

/* The SDK's tg_workspace_open (the real SDK): a computed path is allowed
 * with a workspace capability and a constant mode; workspace:write for a
 * mode that writes; no direct call, no check; a computed fopen path is
 * still refused and its hint names tg_workspace_open. */
static tg_report *ws_analyze(const char *body, const char *cap)
{
	char src[1024];
	const char *caps[] = { cap };
	tg_analyze_opts o = { 0 };
	snprintf(src, sizeof(src),
		 "#include <toolgate/tool.h>\nint main(void)\n{\n\ttg_tool_args *a = tg_tool_read_args();\n"
		 "\tconst char *n = tg_arg_str(a, \"file\", \"\");\n\t%s\n\treturn 0;\n}\n", body);
	o.capabilities = caps;
	o.ncapabilities = cap ? 1 : 0;
	return analyze_opts(src, &o);
}

static void assert_ws_finding(tg_report *r, const char *message, const char *hint_part)
{
	const tg_finding *f = find_rule(r, "file_access");
	assert_false(r->pass);
	assert_int_equal(r->nfindings, 1);
	assert_non_null(f);
	assert_string_equal(f->message, message);
	assert_int_equal(f->line, 6); /* the body line */
	assert_non_null(f->hint);
	assert_non_null(strstr(f->hint, hint_part));
	tg_report_free(r);
}

static void test_workspace_open(void **state)
{
	const char *rd = "FILE *f = tg_workspace_open(n, \"r\"); if (f) fclose(f);";
	const char *wr = "FILE *f = tg_workspace_open(n, \"w\"); if (f) fclose(f);";
	tg_report *r;
	(void)state;
	r = ws_analyze(rd, "workspace:read");
	assert_true(r->pass);
	assert_int_equal(r->nfindings, 0);
	tg_report_free(r);
	r = ws_analyze(wr, "workspace:write");
	assert_true(r->pass);
	tg_report_free(r);
	r = ws_analyze(rd, "workspace:write");
	assert_true(r->pass);
	tg_report_free(r);
	assert_ws_finding(ws_analyze(rd, NULL),
			  "tg_workspace_open: the tool has no workspace capability (workspace:read to read, workspace:write to write)",
			  "\"capabilities\": [\"workspace:read\"]");
	assert_ws_finding(ws_analyze(wr, "workspace:read"),
			  "tg_workspace_open: mode \"w\" writes, which needs the workspace:write capability",
			  "workspace:write for the modes w, a and +");
	assert_ws_finding(ws_analyze("FILE *f = tg_workspace_open(n, n); if (f) fclose(f);",
				     "workspace:write"),
			  "tg_workspace_open: the mode must be a string constant",
			  "pass the mode as a string constant");
	assert_ws_finding(ws_analyze("FILE *(*o)(const char *, const char *) = tg_workspace_open; return o == 0;",
				     "workspace:read"),
			  "tg_workspace_open is used other than by a direct call, so its mode cannot be checked",
			  "tg_workspace_open(name, \"r\")");
	/* fopen of the same computed path: refused, the hint names the function */
	assert_ws_finding(ws_analyze("FILE *f = fopen(n, \"r\"); if (f) fclose(f);", "workspace:read"),
			  "fopen: the path must be a string constant",
			  "open it with tg_workspace_open(name, \"r\") (toolgate/tool.h)");
	/* the functions it uses stay refused in the tool's own code */
	r = ws_analyze("int fd = openat(-100, n, 0); close(fd);", "workspace:read");
	assert_false(r->pass);
	assert_int_equal(r->nfindings, 2);
	assert_string_equal(r->findings[0].message, "openat is not allowed (file_access)");
	assert_string_equal(r->findings[1].message, "close is not allowed (file_access)");
	tg_report_free(r);
}

/* Papercut 6 of issue 29: a skipped guard of definitions only passes the
 * skipped_code rule; a guard around code, a guard with an #else, one that
 * does not define its macro, a continued #define and #if 0 stay refused,
 * each with the rule's finding where the skipped part starts. */
static void assert_skipped(const char *guard, unsigned refused_line)
{
	char src[1024];
	tg_report *r;
	const tg_finding *f;
	snprintf(src, sizeof(src),
		 "#include <math.h>\n%s\nint main(void) { return M_PI > 3.0 ? 0 : 1; }\n", guard);
	r = analyze(src);
	f = find_rule(r, "skipped_code");
	if (!refused_line) {
		assert_true(r->pass);
		assert_int_equal(r->nfindings, 0);
	} else {
		assert_false(r->pass);
		assert_int_equal(r->nfindings, 1);
		assert_non_null(f);
		assert_string_equal(f->message,
				    "this #if block is skipped; dead conditional code is not allowed");
		assert_int_equal(f->line, refused_line);
	}
	tg_report_free(r);
}

static void test_guard_of_definitions(void **state)
{
	(void)state;
	assert_skipped("#ifndef M_PI\n#define M_PI 3.14159265358979323846\n#endif", 0);
	assert_skipped("#if !defined(M_PI) // portable\n\n#  define M_PI 3.14159265358979323846\n"
		       "#define M_PI_2 1.57079632679489661923\n#endif /* M_PI */", 0);
	assert_skipped("#if !defined M_PI\n#define M_PI (3.14159265358979323846)\n#endif", 0);
	/* refused: code, an #else part, another macro, a continued line, #if 0 */
	assert_skipped("#ifndef M_PI\n#define M_PI 3.14\nstatic int spare;\n#endif", 2);
	assert_skipped("#ifndef M_PI\n#define M_PI 3.14\n#else\n#define TAU 6.28\n#endif", 2);
	assert_skipped("#ifndef M_PI\n#define PI_ISH 3.14\n#endif", 2);
	assert_skipped("#ifndef M_PI\n#define M_PI 3.14 \\\n  + 0.0\n#endif", 2);
	assert_skipped("#if 0\n#define M_PI 3.14\n#endif", 2);
	assert_skipped("#ifndef M_PI\n#include <stdio.h>\n#define M_PI 3.14\n#endif", 2);
	assert_skipped("#ifdef M_PI\n#else\n#define M_PI 3.14\n#endif", 3); /* the #else part */
	/* the text check alone */
	assert_int_equal(tg_guard_defines_only("#ifndef X\n#define X 1\n#endif", 28), 1);
	assert_int_equal(tg_guard_defines_only("#ifndef X\n#define X 1\n#endif\nint y;", 35), 0);
	assert_int_equal(tg_guard_defines_only("#ifndef X\n#define XY 1\n#endif", 29), 0);
	assert_int_equal(tg_guard_defines_only("#ifndefX\n#define X 1\n#endif", 27), 0);
	assert_int_equal(tg_guard_defines_only("#ifndef X\n#define X 1\n", 22), 0);
}

static void test_allowed_attributes_and_macros(void **state)
{
	tg_report *r;
	(void)state;
	r = analyze("#include <stdio.h>\n#include <stdlib.h>\n#define NORET __attribute__((noreturn))\n"
		    "static NORET void die(const char *m) { fputs(m, stderr); exit(1); }\n"
		    "static int __attribute__((unused)) spare;\n"
		    "static void say(const char *f, ...) __attribute__((format(printf, 1, 2)));\n"
		    "static void say(const char *f, ...) { fputs(f, stdout); }\n"
		    "int main(void) { say(\"%d\", 1); if (0) die(\"x\"); return 0; }\n");
	assert_true(r->pass);
	tg_report_free(r);
}

static void test_null_function_pointer_is_fine(void **state)
{
	tg_report *r;
	(void)state;
	r = analyze("#include <stddef.h>\nstatic int f(void) { return 1; }\n"
		    "int main(void) { int (*p)(void) = NULL; int (*q)(void) = f; (void)q; return p == NULL ? 0 : 1; }\n");
	assert_true(r->pass);
	tg_report_free(r);
}

static void test_non_ascii_names(void **state)
{
	tg_report *r;
	json_t *j = NULL;
	(void)state;
	r = analyze("extern int caf\xc3\xa9(void);\nint main(void) { return caf\xc3\xa9(); }\n");
	assert_false(r->pass);
	assert_int_equal(tg_report_to_json(&j, r), 0);
	json_decref(j);
	assert_int_equal(tg_report_to_sarif(&j, r, "t.c"), 0);
	json_decref(j);
	tg_report_free(r);
	r = analyze("#include \"\xff\xfe/etc\"\nint main(void) { return 0; }\n");
	assert_true(has_rule(r, "include"));
	assert_int_equal(tg_report_to_json(&j, r), 0);
	json_decref(j);
	tg_report_free(r);
}

static void test_empty_and_nul(void **state)
{
	tg_report *r = NULL;
	(void)state;
	assert_int_equal(tg_analyze(&r, NULL, "t.c", "a\0b", 3, NULL), 0);
	assert_false(r->pass);
	assert_true(has_rule(r, "parse"));
	tg_report_free(r);
	r = analyze("");
	assert_true(r->pass); /* an empty TU has nothing forbidden (the build will fail) */
	tg_report_free(r);
	r = analyze("int main(void) { return undefined_thing; }\n");
	assert_false(r->pass);
	assert_true(has_rule(r, "parse"));
	assert_null(strstr(r->findings[0].message, "undefined_thing"));
	tg_report_free(r);
}

/* Every allowed header, under the feature-test macros a tool may define,
 * resolves inside the curated virtual sysroot. */
static void test_allowed_headers_all_modes(void **state)
{
	static const char *const modes[] = {
		"",
		"#define _GNU_SOURCE\n",
		"#define _DEFAULT_SOURCE\n",
		"#define _XOPEN_SOURCE 700\n",
		"#define _POSIX_C_SOURCE 200809L\n",
		"#define _ISOC11_SOURCE\n",
		"#define _ISOC2X_SOURCE\n#define __STDC_WANT_IEC_60559_TYPES_EXT__ 1\n",
		"#define _FILE_OFFSET_BITS 64\n#define _TIME_BITS 64\n#define _GNU_SOURCE\n",
		"#define __STDC_WANT_LIB_EXT1__ 1\n#define __STDC_WANT_LIB_EXT2__ 1\n",
		"#define _BSD_SOURCE\n#define _SVID_SOURCE\n",
	};
	static const char *const body =
		"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <ctype.h>\n"
		"#include <math.h>\n#include <stdint.h>\n#include <stdbool.h>\n#include <stddef.h>\n"
		"#include <limits.h>\n#include <errno.h>\n#include <float.h>\n#include <inttypes.h>\n"
		"#include <assert.h>\n#include <time.h>\n#include <toolgate/tool.h>\n"
		"int main(void) { printf(\"%d %g\\n\", INT_MAX, sqrt(2.0)); return 0; }\n";
	char src[4096];
	size_t i, k;
	(void)state;
	for (i = 0; i < TG_ARRAY_SIZE(modes); i++) {
		tg_report *r;
		snprintf(src, sizeof(src), "%s%s", modes[i], body);
		r = analyze(src);
		for (k = 0; k < r->nfindings; k++)
			print_message("mode %zu: %u:%u [%s] %s\n", i, r->findings[k].line,
				      r->findings[k].column, r->findings[k].rule, r->findings[k].message);
		assert_true(r->pass);
		assert_int_equal(r->nfindings, 0);
		tg_report_free(r);
	}
}

/* ---- policy ------------------------------------------------------------- */

static int policy_err(const char *json)
{
	tg_policy *p = NULL;
	int r = tg_policy_from_json(&p, json, strlen(json));
	assert_null(p);
	return r;
}

static void test_policy_rejects(void **state)
{
	(void)state;
	assert_int_equal(policy_err("[]"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"alow\":[]}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":\"getenv\"}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":[1]}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":[\"get env\"]}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":[\"\"]}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":[\"a\",\"a\"]}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":[\"a\"],\"deny\":[\"a\"]}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"severity\":{\"nosuchrule\":\"error\"}}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"severity\":{\"process\":\"fatal\"}}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"severity\":{\"process\":2}}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"severity\":{\"include\":\"warning\"}}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"severity\":{\"limits\":\"note\"}}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"version\":2}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"version\":\"1\"}"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":[]} x"), TG_ERR_INVALID);
	assert_int_equal(policy_err("{\"allow\":[],\"allow\":[]}"), TG_ERR_INVALID);
	assert_true(policy_err("") < 0);
	assert_true(strstr(tg_error_last()->message, "policy") != NULL);
}

static void test_policy_effects(void **state)
{
	const char *js = "{\"version\":1,\"allow\":[\"getenv\"],\"deny\":[\"puts\"],"
			 "\"severity\":{\"indirect_call\":\"warning\"}}";
	const char *src = "#include <stdio.h>\n#include <stdlib.h>\n"
			  "static int one(const char *s) { return s != 0; }\n"
			  "int main(void) { int (*f)(const char *) = one; const char *h = getenv(\"HOME\");"
			  " puts(\"x\"); return f(h); }\n";
	tg_policy *p = NULL, *p2 = NULL;
	tg_report *r = NULL;
	tg_analyze_opts o = { 0 };
	json_t *j = NULL;
	char *dump;
	(void)state;
	assert_int_equal(tg_policy_from_json(&p, js, strlen(js)), 0);
	assert_true(tg_policy_allows(p, "getenv"));
	assert_false(tg_policy_allows(p, "puts"));
	assert_true(tg_policy_allows(p, "printf"));
	o.sdk_include_dir = sdk_dir;
	assert_int_equal(tg_analyze(&r, p, "t.c", src, strlen(src), &o), 0);
	assert_false(r->pass); /* puts is denied */
	assert_false(has_rule(r, "environment"));
	assert_int_equal(find_rule(r, "not_allowed")->severity, TG_SEV_ERROR);
	assert_string_equal(find_rule(r, "not_allowed")->symbol, "puts");
	assert_int_equal(find_rule(r, "indirect_call")->severity, TG_SEV_WARNING);
	tg_report_free(r);
	/* round trip */
	assert_int_equal(tg_policy_to_json(&j, p), 0);
	dump = tg_json_dump(j);
	assert_non_null(dump);
	assert_int_equal(tg_policy_from_json(&p2, dump, strlen(dump)), 0);
	assert_true(tg_policy_allows(p2, "getenv"));
	assert_false(tg_policy_allows(p2, "puts"));
	free(dump);
	json_decref(j);
	tg_policy_free(p2);
	tg_policy_free(p);
	tg_policy_free(NULL);
}

static void test_policy_load_file(void **state)
{
	char path[] = "/tmp/tg_analyzer_policy_XXXXXX";
	tg_policy *p = NULL;
	int fd;
	(void)state;
	assert_int_equal(tg_policy_load(&p, "/nonexistent/policy.json"), 0);
	assert_non_null(p);
	assert_true(tg_policy_allows(p, "memcpy"));
	assert_false(tg_policy_allows(p, "system"));
	tg_policy_free(p);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"allow\":5}", 11), 11);
	close(fd);
	assert_int_equal(tg_policy_load(&p, path), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, path));
	unlink(path);
}

static void test_linker_names(void **state)
{
	tg_policy *p = NULL;
	(void)state;
	assert_int_equal(tg_policy_default(&p), 0);
	assert_true(tg_policy_allows_linker(p, "__printf_chk"));
	assert_true(tg_policy_allows_linker(p, "__memcpy_chk"));
	assert_true(tg_policy_allows_linker(p, "__isoc99_sscanf"));
	assert_true(tg_policy_allows_linker(p, "__isoc23_strtol"));
	assert_true(tg_policy_allows_linker(p, "__stack_chk_fail"));
	assert_false(tg_policy_allows_linker(p, "__system_chk"));
	assert_false(tg_policy_allows_linker(p, "__isoc99_system"));
	assert_false(tg_policy_allows_linker(p, "__libc_system"));
	assert_false(tg_policy_allows_linker(p, "__chk"));
	assert_string_equal(tg_symbol_category("__libc_system"), "process");
	assert_string_equal(tg_symbol_category("execvpe"), "process");
	assert_string_equal(tg_symbol_category("__longjmp_chk"), "dynamic_code");
	assert_null(tg_symbol_category("printf"));
	tg_policy_free(p);
}

/* ---- output shapes ------------------------------------------------------ */

static void test_json_shape(void **state)
{
	tg_report *r = analyze("#include <stdlib.h>\nint main(void) { return system(\"id\"); }\n");
	json_t *j = NULL, *f;
	(void)state;
	assert_int_equal(tg_report_to_json(&j, r), 0);
	assert_string_equal(json_string_value(json_object_get(j, "verdict")), "reject");
	f = json_array_get(json_object_get(j, "findings"), 0);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "rule")), "process");
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
	assert_string_equal(json_string_value(json_object_get(f, "symbol")), "system");
	assert_int_equal(json_integer_value(json_object_get(f, "line")), 2);
	assert_true(json_is_integer(json_object_get(f, "column")));
	assert_true(json_is_string(json_object_get(f, "message")));
	json_decref(j);
	tg_report_free(r);
	r = analyze("int main(void) { return 0; }\n");
	assert_int_equal(tg_report_to_json(&j, r), 0);
	assert_string_equal(json_string_value(json_object_get(j, "verdict")), "pass");
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 0);
	json_decref(j);
	tg_report_free(r);
}

static void test_sarif_shape(void **state)
{
	tg_report *r = analyze("#include <stdlib.h>\nint main(void) { return system(\"id\"); }\n");
	json_t *s = NULL, *run, *rules, *res, *loc;
	size_t i;
	(void)state;
	assert_int_equal(tg_report_to_sarif(&s, r, "tools/t.c"), 0);
	assert_string_equal(json_string_value(json_object_get(s, "version")), "2.1.0");
	assert_non_null(strstr(json_string_value(json_object_get(s, "$schema")), "sarif-2.1.0"));
	run = json_array_get(json_object_get(s, "runs"), 0);
	rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
	assert_int_equal(json_array_size(rules), tg_nrules);
	for (i = 0; i < json_array_size(rules); i++) {
		json_t *ru = json_array_get(rules, i);
		const char *lvl;
		assert_string_equal(json_string_value(json_object_get(ru, "id")), tg_rules[i].id);
		assert_true(json_is_string(json_object_get(json_object_get(ru, "shortDescription"), "text")));
		assert_true(json_is_string(json_object_get(json_object_get(ru, "fullDescription"), "text")));
		assert_true(json_is_string(json_object_get(json_object_get(ru, "help"), "text")));
		lvl = json_string_value(json_object_get(json_object_get(ru, "defaultConfiguration"), "level"));
		assert_non_null(lvl);
		assert_true(!strcmp(lvl, "error") || !strcmp(lvl, "warning") || !strcmp(lvl, "note"));
		assert_true(json_is_string(json_object_get(json_object_get(ru, "properties"), "security-severity")));
	}
	res = json_array_get(json_object_get(run, "results"), 0);
	assert_non_null(res);
	assert_string_equal(json_string_value(json_object_get(res, "ruleId")), "process");
	i = (size_t)json_integer_value(json_object_get(res, "ruleIndex"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(rules, i), "id")), "process");
	assert_string_equal(json_string_value(json_object_get(res, "level")), "error");
	assert_true(json_is_string(json_object_get(json_object_get(res, "message"), "text")));
	loc = json_object_get(json_array_get(json_object_get(res, "locations"), 0), "physicalLocation");
	assert_string_equal(json_string_value(json_object_get(json_object_get(loc, "artifactLocation"), "uri")), "tools/t.c");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(loc, "region"), "startLine")), 2);
	assert_true(json_integer_value(json_object_get(json_object_get(loc, "region"), "startColumn")) >= 1);
	json_decref(s);
	tg_report_free(r);
}

static void test_rule_table(void **state)
{
	size_t i, k;
	(void)state;
	for (i = 0; i < tg_nrules; i++) {
		assert_int_equal(tg_rule_index(tg_rules[i].id), (int)i);
		for (k = i + 1; k < tg_nrules; k++)
			assert_string_not_equal(tg_rules[i].id, tg_rules[k].id);
	}
	assert_int_equal(tg_rule_index("nope"), -1);
	assert_string_equal(tg_severity_name(TG_SEV_WARNING), "warning");
	tg_report_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_include_forms),
		cmocka_unit_test(test_vfs_blocks_host_files),
		cmocka_unit_test(test_fifo_include_does_not_hang),
		cmocka_unit_test(test_cpath_is_scrubbed),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_capabilities),
		cmocka_unit_test(test_allowed_attributes_and_macros),
		cmocka_unit_test(test_null_function_pointer_is_fine),
		cmocka_unit_test(test_empty_and_nul),
		cmocka_unit_test(test_non_ascii_names),
		cmocka_unit_test(test_allowed_headers_all_modes),
		cmocka_unit_test(test_policy_rejects),
		cmocka_unit_test(test_policy_effects),
		cmocka_unit_test(test_policy_load_file),
		cmocka_unit_test(test_linker_names),
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_sarif_shape),
		cmocka_unit_test(test_rule_table),
		cmocka_unit_test(test_workspace_open),
		cmocka_unit_test(test_guard_of_definitions),
	};
	return cmocka_run_group_tests(tests, setup_files, teardown_files);
}
