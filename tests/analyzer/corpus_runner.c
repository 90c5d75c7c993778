/*
 * tests/analyzer/corpus_runner.c: runs every .c file of a corpus folder
 * through tg_analyze and asserts its first-line expectation exactly:
 * "// expect: pass" means no error-level finding; "// expect: r1 r2" means
 * the set of error-level rule ids is exactly {r1, r2}. A line
 * "// capabilities: a b" grants capabilities. Each line "// finding: RULE:
 * TEXT" asserts an error-level finding of RULE whose message holds TEXT (the
 * reason, not only the rule). With --object, each file is
 * also built by the real build (tg_sandbox_build: the sandboxed clang with
 * the analyzer's own front-end arguments) and tg_analyze_object must pass.
 * With --run (the differential corpus), the binary that the real build made
 * also runs in the tool sandbox and must print the "// output: " line: what
 * the analyser read is what was built. Each analysis runs as toolgate's
 * does: in a fresh image of this program under the parse filter.
 * Usage: analyzer_corpus DIR SDK_DIR [--object|--run] (SDK_DIR "-": the default,
 * i.e. the source tree's sdk/ or the installed one)
 */
#include "analyzer/analyzer.h"
#include "sandbox/sandbox.h"

#include <dirent.h>
#include <string.h>
#include <sys/wait.h>

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* words of the line starting with tag, or NULL */
static char *line_after(const char *src, const char *tag)
{
	const char *p = strstr(src, tag), *e;
	if (!p)
		return NULL;
	p += strlen(tag);
	e = strchr(p, '\n');
	return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

static int has_word(const char *list, const char *w)
{
	char buf[512], *save = NULL, *t;
	snprintf(buf, sizeof(buf), "%s", list);
	for (t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		if (strcmp(t, w) == 0)
			return 1;
	return 0;
}

/* Every "// finding: RULE: TEXT" line of src names an error finding of r
 * (RULE, and TEXT within its message); prints the ones that do not. */
static int findings_ok(const char *src, const tg_report *r)
{
	const char *p = src;
	int ok = 1;
	while ((p = strstr(p, "// finding: ")) != NULL) {
		char *line = line_after(p, "// finding: "), *text = line ? strstr(line, ": ") : NULL;
		int found = 0;
		p += 12;
		if (!text) {
			printf("  malformed // finding: line\n");
			free(line);
			return 0;
		}
		*text = 0;
		text += 2;
		for (size_t k = 0; k < r->nfindings && !found; k++)
			found = r->findings[k].severity == TG_SEV_ERROR &&
				strcmp(r->findings[k].rule, line) == 0 &&
				strstr(r->findings[k].message, text) != NULL;
		if (!found) {
			printf("  no %s finding saying \"%s\"\n", line, text);
			ok = 0;
		}
		free(line);
	}
	return ok;
}

/* Run the built binary in the tool sandbox: it must print `want` and a newline. */
static int run_check(const char *binary, const char *want)
{
	tg_sandbox_opts so = { 0 };
	tg_run_result *run = NULL;
	char expect[512];
	int ok;

	snprintf(expect, sizeof(expect), "%s\n", want);
	so.program = binary;
	so.stdin_data = "{}";
	so.stdin_len = 2;
	if (tg_sandbox_run(&run, &so) < 0) {
		printf("  run: %s\n", tg_error_last()->message);
		return 0;
	}
	ok = run->reason == TG_REASON_EXITED && run->exit_code == 0 && run->out &&
	     strcmp(run->out, expect) == 0;
	if (!ok)
		printf("  run: %s exit %d, stdout \"%.200s\", expected \"%s\"\n",
		       tg_reason_name(run->reason), run->exit_code, run->out ? run->out : "", want);
	tg_run_result_free(run);
	return ok;
}

static int object_check(const char *src, size_t len, const char *sdk, const char *want_out)
{
	char dir[] = "/tmp/tg_corpus_XXXXXX";
	tg_build_opts bo = { 0 };
	tg_build_result *b = NULL;
	tg_report *r = NULL;
	int ok = 0;
	size_t i;

	if (!mkdtemp(dir))
		return 0;
	bo.source = src;
	bo.source_len = len;
	bo.sdk_include_dir = strcmp(sdk, "-") == 0 ? TG_SOURCE_SDK : sdk;
	bo.out_dir = dir;
	if (tg_sandbox_build(&b, &bo) < 0) {
		printf("  object: %s\n", tg_error_last()->message);
	} else if (!b->ok) {
		printf("  object: the build failed:\n%s\n", b->log);
	} else if (tg_analyze_object(&r, NULL, b->object_path, NULL) < 0) {
		printf("  object: %s\n", tg_error_last()->message);
	} else {
		ok = r->pass;
		for (i = 0; i < r->nfindings; i++)
			printf("  object finding: [%s] %s\n", r->findings[i].rule, r->findings[i].message);
		if (ok && want_out)
			ok = run_check(b->binary_path, want_out);
	}
	if (b) {
		unlink(b->object_path);
		unlink(b->binary_path);
	}
	tg_build_result_free(b);
	tg_report_free(r);
	rmdir(dir);
	return ok;
}

int main(int argc, char **argv)
{
	char *names[512];
	size_t n = 0, i, k;
	int failures = 0, object = argc > 3 && (strcmp(argv[3], "--object") == 0 ||
						strcmp(argv[3], "--run") == 0);
	int run = argc > 3 && strcmp(argv[3], "--run") == 0;
	struct dirent *de;
	DIR *d;

	/* every file analysed as toolgate does: in a fresh image, confined */
	tg_analyze_main(argc, argv, tg_sandbox_confine_parse);

	if (argc < 3)
		return 2;
	d = opendir(argv[1]);
	if (!d)
		return 2;
	while ((de = readdir(d)) && n < 512) {
		size_t l = strlen(de->d_name);
		if (l > 2 && strcmp(de->d_name + l - 2, ".c") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	for (i = 0; i < n; i++) {
		char *path = NULL, *src = NULL, *expect, *caps, *output;
		const char *capv[4];
		size_t len, ncap = 0;
		tg_analyze_opts o = { 0 };
		tg_report *r = NULL;
		char got[1024] = "";
		int ok = 1;

		path = tg_path_join(argv[1], names[i]);
		if (tg_file_read(&src, &len, path, 1 << 20) < 0) {
			printf("FAIL %s: unreadable\n", names[i]);
			failures++;
			continue;
		}
		expect = line_after(src, "// expect:");
		caps = line_after(src, "// capabilities:");
		output = run ? line_after(src, "// output: ") : NULL;
		if (caps) {
			char *save = NULL, *t;
			for (t = strtok_r(caps, " ", &save); t && ncap < 4; t = strtok_r(NULL, " ", &save))
				capv[ncap++] = t;
			o.capabilities = capv;
			o.ncapabilities = ncap;
		}
		o.sdk_include_dir = strcmp(argv[2], "-") == 0 ? NULL : argv[2];
		if (!expect) {
			printf("FAIL %s: no // expect: line\n", names[i]);
			failures++;
		} else if (tg_analyze(&r, NULL, names[i], src, len, &o) < 0) {
			printf("FAIL %s: %s\n", names[i], tg_error_last()->message);
			failures++;
		} else {
			int want_pass = has_word(expect, "pass");
			for (k = 0; k < r->nfindings; k++) {
				const tg_finding *f = &r->findings[k];
				if (f->severity != TG_SEV_ERROR)
					continue;
				if (!has_word(got, f->rule)) {
					strncat(got, " ", sizeof(got) - strlen(got) - 1);
					strncat(got, f->rule, sizeof(got) - strlen(got) - 1);
				}
				if (want_pass || !has_word(expect, f->rule))
					ok = 0;
			}
			if (want_pass != r->pass || !findings_ok(src, r))
				ok = 0;
			if (!want_pass) {
				char buf[512], *save = NULL, *t;
				snprintf(buf, sizeof(buf), "%s", expect);
				for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
					if (!has_word(got, t))
						ok = 0;
			}
			if (run && want_pass && !output) {
				printf("  no // output: line for a passing file\n");
				ok = 0;
			}
			if (ok && object && want_pass && !object_check(src, len, argv[2], output))
				ok = 0;
			printf("%s %s: expect:%s got:%s (%llu ms)\n", ok ? "ok  " : "FAIL", names[i],
			       expect, got[0] ? got : " pass", (unsigned long long)r->elapsed_ms);
			if (!ok) {
				failures++;
				for (k = 0; k < r->nfindings; k++)
					printf("  %u:%u [%s] %s\n", r->findings[k].line,
					       r->findings[k].column, r->findings[k].rule,
					       r->findings[k].message);
			}
		}
		tg_report_free(r);
		free(expect);
		free(caps);
		free(output);
		free(src);
		free(path);
		free(names[i]);
	}
	printf("%zu files, %d failures\n", n, failures);
	return failures ? 1 : 0;
}
