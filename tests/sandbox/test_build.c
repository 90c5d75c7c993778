/*
 * tests/sandbox/test_build.c: tg_sandbox_build(): a tool compiles to a
 * static PIE that then runs in the sandbox; compile errors come back in the
 * log with ok = 0; the compiler cannot read host files through #include
 * (a secret file the test creates, and /etc/shadow); outputs land in
 * out_dir only.
 */
#include "sandbox/sandbox.h"
#include "sandbox/internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <cmocka.h>

static char outdir[] = "/tmp/tg-sbx-build-XXXXXX";
static char sdkdir[] = "/tmp/tg-sbx-sdk-XXXXXX";

static tg_build_result *build(const char *src, int sdk)
{
	tg_build_opts o;
	tg_build_result *r = NULL;

	memset(&o, 0, sizeof(o));
	o.source = src;
	o.source_len = strlen(src);
	o.out_dir = outdir;
	o.sdk_include_dir = sdk ? sdkdir : NULL;
	if (tg_sandbox_build(&r, &o) < 0)
		fail_msg("build failed: %s", tg_error_last()->message);
	assert_non_null(r);
	assert_non_null(r->run);
	assert_non_null(r->log);
	return r;
}

static void sandbox_build_and_run(void **state)
{
	static const char *src = "#include <stdio.h>\n#include <toolgate/answer.h>\n"
				 "int main(void) { char b[64]; size_t n = fread(b, 1, sizeof b, stdin);\n"
				 "printf(\"{\\\"n\\\":%zu,\\\"a\\\":%d}\\n\", n, ANSWER); return 0; }\n";
	tg_build_result *r;
	tg_run_result *run = NULL;
	tg_sandbox_opts o;
	char *elf = NULL;
	size_t len = 0;
	int dyn = 1;

	(void)state;
	r = build(src, 1);
	if (!r->ok)
		fail_msg("build log: %s", r->log);
	assert_string_equal(r->run->reason == TG_REASON_EXITED ? "exited" : "?", "exited");
	assert_int_equal(access(r->object_path, R_OK), 0);
	assert_int_equal(access(r->binary_path, X_OK), 0);
	/* a static PIE: ELF type ET_DYN without PT_INTERP */
	assert_int_equal(tg_file_read(&elf, &len, r->binary_path, 64u << 20), 0);
	assert_true(len > 64 && memcmp(elf, "\177ELF", 4) == 0);
	assert_int_equal(elf[16], 3 /* ET_DYN */);
	free(elf);
	assert_int_equal(tg_sandbox_elf_dynamic(&dyn, r->binary_path), 0);
	assert_int_equal(dyn, 0);
	memset(&o, 0, sizeof(o));
	o.program = r->binary_path;
	o.stdin_data = "{\"x\":1}";
	o.stdin_len = 7;
	assert_int_equal(tg_sandbox_run(&run, &o), 0);
	assert_int_equal(run->reason, TG_REASON_EXITED);
	assert_int_equal(run->exit_code, 0);
	assert_string_equal(run->out, "{\"n\":7,\"a\":42}\n");
	tg_run_result_free(run);
	tg_build_result_free(r);
}

/* <math.h> is allowed by the analyzer, so the link must bring libm */
static void sandbox_build_links_libm(void **state)
{
	static const char *src = "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
				 "int main(void) { volatile double x = 2.0; double y = sqrt(x) * pow(x, 3.0);\n"
				 "printf(\"%.4f\\n\", y); return 0; }\n";
	tg_build_result *r;
	tg_run_result *run = NULL;
	tg_sandbox_opts o;

	(void)state;
	r = build(src, 0);
	if (!r->ok)
		fail_msg("build log: %s", r->log);
	memset(&o, 0, sizeof(o));
	o.program = r->binary_path;
	assert_int_equal(tg_sandbox_run(&run, &o), 0);
	assert_int_equal(run->reason, TG_REASON_EXITED);
	assert_string_equal(run->out, "11.3137\n");
	tg_run_result_free(run);
	tg_build_result_free(r);
}

/* Where static-pie cannot link, the fallback: a static, non-PIE binary
 * (ELF type ET_EXEC), still full RELRO, that runs in the sandbox. */
static void sandbox_build_static_fallback(void **state)
{
	static const char *src = "#include <stdio.h>\nint main(void) { puts(\"fallback\"); return 0; }\n";
	tg_build_result *r;
	tg_run_result *run = NULL;
	tg_sandbox_opts o;
	char *elf = NULL;
	size_t len = 0;

	(void)state;
	sbx_build_test_no_static_pie(1);
	r = build(src, 0);
	sbx_build_test_no_static_pie(0);
	if (!r->ok)
		fail_msg("build log: %s", r->log);
	assert_non_null(strstr(r->log, "linking with -static"));
	assert_int_equal(tg_file_read(&elf, &len, r->binary_path, 64u << 20), 0);
	assert_true(len > 64 && memcmp(elf, "\177ELF", 4) == 0);
	assert_int_equal(elf[16], 2 /* ET_EXEC */);
	free(elf);
	memset(&o, 0, sizeof(o));
	o.program = r->binary_path;
	assert_int_equal(tg_sandbox_run(&run, &o), 0);
	assert_int_equal(run->reason, TG_REASON_EXITED);
	assert_string_equal(run->out, "fallback\n");
	tg_run_result_free(run);
	tg_build_result_free(r);
}

static void sandbox_build_errors(void **state)
{
	tg_build_result *r;

	(void)state;
	r = build("int main(void) { return undeclared_fn(); }\n", 0);
	assert_int_equal(r->ok, 0);
	assert_int_equal(r->run->reason, TG_REASON_EXITED);
	assert_int_not_equal(r->run->exit_code, 0);
	assert_non_null(strstr(r->log, "implicit declaration of function 'undeclared_fn'"));
	tg_build_result_free(r);
	r = build("int main(void) { return 0 }\n", 0);
	assert_int_equal(r->ok, 0);
	assert_non_null(strstr(r->log, "error:"));
	tg_build_result_free(r);
	/* compiles, does not link */
	r = build("int missing(void);\nint main(void) { return missing(); }\n", 0);
	assert_int_equal(r->ok, 0);
	assert_non_null(strstr(r->log, "undefined reference to `missing'"));
	tg_build_result_free(r);
}

static void sandbox_build_host_files(void **state)
{
	char secret_dir[] = "/tmp/tg-sbx-secret-XXXXXX", path[128], src[512];
	tg_build_result *r;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(secret_dir));
	snprintf(path, sizeof(path), "%s/secret.h", secret_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("int leaked = 0x5ec7e7; /* TG-SECRET-7f3a */\n", f);
	fclose(f);
	chmod(secret_dir, 0755);
	chmod(path, 0644);
	snprintf(src, sizeof(src), "#include \"%s\"\nint main(void) { return leaked; }\n", path);
	r = build(src, 0);
	assert_int_equal(r->ok, 0);
	assert_non_null(strstr(r->log, "file not found"));
	assert_null(strstr(r->log, "TG-SECRET-7f3a"));
	tg_build_result_free(r);
	r = build("#include \"/etc/shadow\"\nint main(void) { return 0; }\n", 0);
	assert_int_equal(r->ok, 0);
	assert_non_null(strstr(r->log, "'/etc/shadow' file not found"));
	assert_null(strstr(r->log, "root:"));
	tg_build_result_free(r);
	/* the assembler cannot embed a host file either */
	snprintf(src, sizeof(src),
		 "__asm__(\".section .rodata\\n.incbin \\\"%s\\\"\\n.text\");\n"
		 "int main(void) { return 0; }\n", path);
	r = build(src, 0);
	assert_int_equal(r->ok, 0);
	assert_non_null(strstr(r->log, "Could not find incbin file"));
	assert_null(strstr(r->log, "TG-SECRET-7f3a"));
	tg_build_result_free(r);
	r = build("#include \"/proc/self/environ\"\nint main(void) { return 0; }\n", 0);
	assert_int_equal(r->ok, 0);
	assert_non_null(strstr(r->log, "file not found"));
	tg_build_result_free(r);
	unlink(path);
	rmdir(secret_dir);
}

/* 1 if some line (24+ characters, trimmed) of the host file appears in log */
static int quotes_file(const char *log, const char *path)
{
	char *data = NULL, *line, *save = NULL;
	size_t len = 0;
	int hit = 0;

	if (tg_file_read(&data, &len, path, 4u << 20) < 0)
		return 0;
	for (line = strtok_r(data, "\n", &save); line && !hit; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (strlen(line) >= 24 && strstr(log, line))
			hit = 1;
	}
	free(data);
	return hit;
}

/* The compiler's diagnostics go back to the submitter, so nothing may make
 * them quote a host file: errors inside system headers (a macro breaking
 * stdio.h), #line naming a host file, a conflicting redeclaration of a
 * libc function, .. out of the SDK folder. */
static void sandbox_build_diagnostics_quote_nothing(void **state)
{
	static const char *const headers[] = {
		"/usr/include/stdio.h", "/usr/include/x86_64-linux-gnu/bits/stdio.h",
		"/usr/include/x86_64-linux-gnu/bits/types/struct_FILE.h",
		"/usr/include/x86_64-linux-gnu/bits/types/FILE.h",
		"/usr/include/x86_64-linux-gnu/sys/cdefs.h", "/etc/passwd",
	};
	static const char *const srcs[] = {
		"#define FILE int\n#include <stdio.h>\nint main(void) { return 0; }\n",
		"#define __restrict +\n#include <stdio.h>\nint main(void) { return 0; }\n",
		"#include <stdio.h>\nint printf(int);\nint main(void) { return 0; }\n",
		"#line 1 \"/etc/passwd\"\nint main(void) { return y; }\n",
		"#include <toolgate/../../../../etc/passwd>\nint main(void) { return 0; }\n",
		"#include \"../etc/passwd\"\nint main(void) { return 0; }\n",
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < TG_ARRAY_SIZE(srcs); i++) {
		tg_build_result *r = build(srcs[i], 1);
		assert_int_equal(r->ok, 0);
		assert_non_null(strstr(r->log, "error"));
		for (k = 0; k < TG_ARRAY_SIZE(headers); k++)
			if (quotes_file(r->log, headers[k]))
				fail_msg("source %zu: the log quotes %s:\n%s", i, headers[k], r->log);
		/* headers are named by their virtual path only */
		assert_null(strstr(r->log, "/usr/include"));
		tg_build_result_free(r);
	}
}

/* The build refuses a compiler that is not the analyzer's clang release. */
static void sandbox_build_refuses_other_compiler(void **state)
{
	tg_build_opts o;
	tg_build_result *r = NULL;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.source = "int main(void) { return 0; }\n";
	o.source_len = strlen(o.source);
	o.out_dir = outdir;
	sbx_build_test_compiler("/usr/bin/gcc");
	assert_int_equal(tg_sandbox_build(&r, &o), TG_ERR_UNAVAILABLE);
	assert_null(r);
	assert_non_null(strstr(tg_error_last()->message, "not clang " ));
	assert_non_null(strstr(tg_error_last()->message, tg_cfront_clang_version()));
	sbx_build_test_compiler("/nonexistent/clang");
	assert_int_equal(tg_sandbox_build(&r, &o), TG_ERR_UNAVAILABLE);
	assert_non_null(strstr(tg_error_last()->message, "is missing"));
	sbx_build_test_compiler(NULL);
	assert_int_equal(tg_sandbox_build(&r, &o), 0);
	assert_int_equal(r->ok, 1);
	tg_build_result_free(r);
}

static void sandbox_build_bad_input(void **state)
{
	tg_build_opts o;
	tg_build_result *r = NULL;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(tg_sandbox_build(&r, &o), TG_ERR_INVALID);
	o.source = "int main(void){return 0;}";
	o.source_len = strlen(o.source);
	o.out_dir = "/nonexistent/folder";
	assert_int_equal(tg_sandbox_build(&r, &o), TG_ERR_NOTFOUND);
	o.out_dir = outdir;
	o.source_len = (1u << 20) + 1;
	assert_int_equal(tg_sandbox_build(&r, &o), TG_ERR_LIMIT);
	assert_null(r);
	tg_build_result_free(NULL);
}

static int setup(void **state)
{
	char path[128];
	FILE *f;

	(void)state;
	if (!mkdtemp(outdir) || !mkdtemp(sdkdir))
		return -1;
	snprintf(path, sizeof(path), "%s/toolgate", sdkdir);
	mkdir(path, 0755);
	chmod(sdkdir, 0755);
	snprintf(path, sizeof(path), "%s/toolgate/answer.h", sdkdir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("#define ANSWER 42\n", f);
	fclose(f);
	chmod(path, 0644);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", outdir, sdkdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sandbox_build_and_run),
		cmocka_unit_test(sandbox_build_links_libm),
		cmocka_unit_test(sandbox_build_static_fallback),
		cmocka_unit_test(sandbox_build_errors),
		cmocka_unit_test(sandbox_build_host_files),
		cmocka_unit_test(sandbox_build_diagnostics_quote_nothing),
		cmocka_unit_test(sandbox_build_refuses_other_compiler),
		cmocka_unit_test(sandbox_build_bad_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
