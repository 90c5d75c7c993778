/*
 * tests/store/store_test_util.h: helpers shared by the store tests: a
 * temporary folder per test and the cmocka fixture made of it, running the
 * git CLI on a store, and putting a version with the four files the
 * registry passes.
 */
#ifndef TG_STORE_TEST_UTIL_H
#define TG_STORE_TEST_UTIL_H

#include "store/store.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* mkdtemp under TMPDIR (or /tmp); caller frees and removes. */
static inline char *st_test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *p = NULL;

	if (asprintf(&p, "%s/tg_store_test_XXXXXX", base && *base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	return p;
}

static inline void st_test_rmrf(const char *dir)
{
	char *cmd = NULL;

	if (dir && asprintf(&cmd, "rm -rf '%s'", dir) >= 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	free(cmd);
}

/* The fixture of the cmocka store tests (setup and teardown of each case):
 * a temporary folder dir, the paths of three repositories in it (a.git,
 * b.git, c.git) and the store s opened, created, at a; the others are
 * left to the test. Needs cmocka.h included first. */
typedef struct st_fixture {
	char *dir;
	char *a, *b, *c;
	tg_store *s;
} st_fixture;

static inline int st_fixture_setup(void **state)
{
	st_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = st_test_tmpdir();
	assert_non_null(f->dir);
	assert_true(asprintf(&f->a, "%s/a.git", f->dir) > 0);
	assert_true(asprintf(&f->b, "%s/b.git", f->dir) > 0);
	assert_true(asprintf(&f->c, "%s/c.git", f->dir) > 0);
	assert_int_equal(tg_store_open(&f->s, f->a, 1), 0);
	*state = f;
	return 0;
}

static inline int st_fixture_teardown(void **state)
{
	st_fixture *f = *state;

	tg_store_free(f->s);
	st_test_rmrf(f->dir);
	free(f->dir);
	free(f->a);
	free(f->b);
	free(f->c);
	free(f);
	return 0;
}

/* Run a shell command; its stdout (capped at 1 MiB) into *out when out is
 * not NULL. Returns the exit status, or -1. */
static inline int st_test_sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int st_test_sh(char **out, const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	FILE *f;
	size_t cap = 1 << 20, len = 0, n;
	char *buf;
	int st;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (!cmd)
		return -1;
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return -1;
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0)
		len += n;
	st = pclose(f);
	if (buf)
		buf[len] = '\0';
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `git fsck --strict` on the store named by %s, its output (less the notices
 * about the unborn HEAD of a branch-free repository and about having no
 * refs yet) on stdout, its status. */
#define ST_TEST_FSCK \
	"o=$(git --git-dir='%s' fsck --strict --no-dangling 2>&1); rc=$?; " \
	"printf '%%s' \"$o\" | grep -v -e '^notice: HEAD points to an unborn branch' -e '^notice: No default references'; exit $rc"

/* Put a version with tool.json, tool.c (source), analysis.json, tests.json. */
static inline int st_test_put(tg_store_version **out, tg_store *s, const char *tool, const char *source,
			      const char *verdict)
{
	char manifest[256];
	tg_store_file files[4];
	tg_store_trailer tr[2];
	tg_store_put_opts o;

	snprintf(manifest, sizeof(manifest), "{\"name\":\"%s\",\"source\":\"tool.c\"}\n", tool);
	files[0] = (tg_store_file){ "tool.json", manifest, strlen(manifest) };
	files[1] = (tg_store_file){ "tool.c", source, strlen(source) };
	files[2] = (tg_store_file){ "analysis.json", "{\"verdict\":\"pass\"}\n", 19 };
	files[3] = (tg_store_file){ "tests.json", "[]\n", 3 };
	tr[0] = (tg_store_trailer){ "Toolgate-Verdict", verdict ? verdict : "pass" };
	tr[1] = (tg_store_trailer){ "Toolgate-Submitter", "test" };
	memset(&o, 0, sizeof(o));
	o.tool = tool;
	o.files = files;
	o.nfiles = 4;
	o.trailers = tr;
	o.ntrailers = 2;
	return tg_store_put(out, s, &o);
}

#endif
