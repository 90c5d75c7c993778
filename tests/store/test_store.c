/*
 * tests/store/test_store.c: unit tests of store/: round trips of files and
 * trailers, history order, diffs, the active pointer's compare-and-swap,
 * name and size validation, stale lock clearing, verify, and what plain git
 * sees (fsck --strict, log, reflog).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "store_test_util.h"

static void test_open_missing(void **state)
{
	st_fixture *f = *state;
	tg_store *s = (tg_store *)1;
	char *p = NULL;

	assert_true(asprintf(&p, "%s/nothere.git", f->dir) > 0);
	assert_int_equal(tg_store_open(&s, p, 0), TG_ERR_NOTFOUND);
	assert_null(s);
	free(p);
}

static void test_round_trip(void **state)
{
	st_fixture *f = *state;
	tg_store_version *v = NULL, *g = NULL;
	char *data = NULL;
	size_t len = 0;

	assert_int_equal(st_test_put(&v, f->s, "hello", "int main(void){return 0;}\n", "pass"), 0);
	assert_int_equal(v->version, 1);
	assert_string_equal(v->tool, "hello");
	assert_int_equal(strlen(v->commit), 40);
	assert_string_equal(tg_store_version_trailer(v, "Toolgate-Version"), "1");
	assert_string_equal(tg_store_version_trailer(v, "Toolgate-Verdict"), "pass");
	assert_string_equal(tg_store_version_trailer(v, "toolgate-submitter"), "test");
	assert_null(tg_store_version_trailer(v, "Toolgate-Status"));
	assert_string_equal(v->subject, "hello: version 1");

	assert_int_equal(tg_store_get_version(&g, f->s, "hello", 1), 0);
	assert_string_equal(g->commit, v->commit);
	assert_int_equal(g->ntrailers, 3);
	assert_string_equal(g->trailers[0].key, "Toolgate-Version");
	assert_true(g->time > 1700000000);
	tg_store_version_free(g);

	assert_int_equal(tg_store_get_file(&data, &len, f->s, "hello", 1, "tool.c"), 0);
	assert_int_equal(len, strlen("int main(void){return 0;}\n"));
	assert_string_equal(data, "int main(void){return 0;}\n");
	free(data);
	assert_int_equal(tg_store_get_file(&data, &len, f->s, "hello", 1, "tool.json"), 0);
	assert_string_equal(data, "{\"name\":\"hello\",\"source\":\"tool.c\"}\n");
	free(data);
	assert_int_equal(tg_store_get_file(&data, &len, f->s, "hello", 1, "nope.txt"), TG_ERR_NOTFOUND);
	assert_null(data);
	assert_int_equal(tg_store_get_version(&g, f->s, "hello", 2), TG_ERR_NOTFOUND);
	assert_int_equal(tg_store_get_version(&g, f->s, "hello", 0), TG_ERR_NOTFOUND);
	assert_int_equal(tg_store_get_version(&g, f->s, "other", 1), TG_ERR_NOTFOUND);
	assert_null(g);
	tg_store_version_free(v);
}

static void test_binary_and_custom(void **state)
{
	st_fixture *f = *state;
	static const char bin[] = { 'a', 0, 'b', '\n', (char)0xff };
	tg_store_file files[3] = {
		{ "tool.json", "{}", 2 }, { "tool.c", bin, sizeof(bin) }, { "empty", NULL, 0 },
	};
	tg_store_trailer tr[1] = { { "Toolgate-Status", "active: yes" } };
	tg_store_put_opts o = { .tool = "bin", .files = files, .nfiles = 3, .trailers = tr, .ntrailers = 1,
				.subject = "Key: looks like a trailer", .author_name = "Agent Smith",
				.author_email = "agent@example.org" };
	tg_store_version *v = NULL;
	char *data = NULL;
	size_t len;

	assert_int_equal(tg_store_put(&v, f->s, &o), 0);
	assert_string_equal(v->subject, "Key: looks like a trailer");
	assert_int_equal(v->ntrailers, 2);
	assert_string_equal(tg_store_version_trailer(v, "Toolgate-Status"), "active: yes");
	tg_store_version_free(v);
	assert_int_equal(tg_store_get_file(&data, &len, f->s, "bin", 1, "tool.c"), 0);
	assert_int_equal(len, sizeof(bin));
	assert_memory_equal(data, bin, sizeof(bin));
	free(data);
	assert_int_equal(tg_store_get_file(&data, &len, f->s, "bin", 1, "empty"), 0);
	assert_int_equal(len, 0);
	free(data);
	/* put with out == NULL works too */
	assert_int_equal(tg_store_put(NULL, f->s, &o), 0);
	assert_int_equal(tg_store_get_version(&v, f->s, "bin", 2), 0);
	tg_store_version_free(v);
}

static void test_history_order(void **state)
{
	st_fixture *f = *state;
	tg_store_version_list *l = NULL;
	char src[64];
	unsigned i;

	for (i = 1; i <= 5; i++) {
		snprintf(src, sizeof(src), "/* v%u */\n", i);
		assert_int_equal(st_test_put(NULL, f->s, "hist", src, "pass"), 0);
	}
	assert_int_equal(st_test_put(NULL, f->s, "other", "x", "pass"), 0);
	assert_int_equal(tg_store_list_versions(&l, f->s, "hist"), 0);
	assert_int_equal(l->n, 5);
	for (i = 0; i < 5; i++) {
		tg_store_version *g = NULL;
		assert_int_equal(l->items[i].version, 5 - i);
		assert_string_equal(l->items[i].tool, "hist");
		assert_int_equal(tg_store_get_version(&g, f->s, "hist", 5 - i), 0);
		assert_string_equal(g->commit, l->items[i].commit);
		tg_store_version_free(g);
	}
	tg_store_version_list_free(l);
	assert_int_equal(tg_store_list_versions(&l, f->s, "nothere"), TG_ERR_NOTFOUND);
	assert_null(l);
}

static void test_list_tools(void **state)
{
	st_fixture *f = *state;
	char **names = NULL;
	size_t n = 99;

	assert_int_equal(tg_store_list_tools(&names, &n, f->s), 0);
	assert_int_equal(n, 0);
	tg_store_free_names(names, n);
	assert_int_equal(st_test_put(NULL, f->s, "zeta", "z", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "a", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "mid_1", "m", "pass"), 0);
	assert_int_equal(tg_store_list_tools(&names, &n, f->s), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "alpha");
	assert_string_equal(names[1], "mid_1");
	assert_string_equal(names[2], "zeta");
	tg_store_free_names(names, n);
}

static void test_diff(void **state)
{
	st_fixture *f = *state;
	char *d = NULL;

	assert_int_equal(st_test_put(NULL, f->s, "dt", "line one\nold line\nline three\n", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "dt", "line one\nnew line\nline three\n", "reject"), 0);
	assert_int_equal(tg_store_diff(&d, f->s, "dt", 1, 2), 0);
	assert_non_null(strstr(d, "diff --git a/tool.c b/tool.c"));
	assert_non_null(strstr(d, "\n-old line\n"));
	assert_non_null(strstr(d, "\n+new line\n"));
	assert_non_null(strstr(d, "@@ -1,3 +1,3 @@"));
	assert_null(strstr(d, "tool.json")); /* unchanged files are not shown */
	free(d);
	assert_int_equal(tg_store_diff(&d, f->s, "dt", 2, 2), 0);
	assert_string_equal(d, "");
	free(d);
	assert_int_equal(tg_store_diff(&d, f->s, "dt", 1, 3), TG_ERR_NOTFOUND);
	assert_null(d);
}

static void test_diff_manifest(void **state)
{
	st_fixture *f = *state;
	tg_store_file f1[2] = { { "tool.json", "{\"a\":1}\n", 8 }, { "tool.c", "x\n", 2 } };
	tg_store_file f2[3] = { { "tool.json", "{\"a\":2}\n", 8 }, { "tool.c", "x\n", 2 },
				{ "tests.json", "[]\n", 3 } };
	tg_store_put_opts o = { .tool = "dm", .files = f1, .nfiles = 2 };
	char *d = NULL;

	assert_int_equal(tg_store_put(NULL, f->s, &o), 0);
	o.files = f2;
	o.nfiles = 3;
	assert_int_equal(tg_store_put(NULL, f->s, &o), 0);
	assert_int_equal(tg_store_diff(&d, f->s, "dm", 1, 2), 0);
	assert_non_null(strstr(d, "diff --git a/tool.json b/tool.json"));
	assert_non_null(strstr(d, "-{\"a\":1}"));
	assert_non_null(strstr(d, "+{\"a\":2}"));
	assert_non_null(strstr(d, "new file mode 100644"));
	assert_null(strstr(d, "a/tool.c"));
	free(d);
}

static void test_active_cas(void **state)
{
	st_fixture *f = *state;
	unsigned v = 99;
	char commit[41];
	tg_store_version *v1 = NULL, *v2 = NULL;
	char *log = NULL;

	assert_int_equal(st_test_put(&v1, f->s, "act", "one", "pass"), 0);
	assert_int_equal(st_test_put(&v2, f->s, "act", "two", "pass"), 0);
	assert_int_equal(tg_store_get_active(&v, commit, f->s, "act"), 0);
	assert_int_equal(v, 0);
	assert_string_equal(commit, "");
	assert_int_equal(tg_store_set_active(f->s, "act", 1, 0, "activate v1"), 0);
	assert_int_equal(tg_store_get_active(&v, commit, f->s, "act"), 0);
	assert_int_equal(v, 1);
	assert_string_equal(commit, v1->commit);
	/* expected "none", but v1 is active: conflict, nothing changed */
	assert_int_equal(tg_store_set_active(f->s, "act", 2, 0, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "act"), 0);
	assert_int_equal(v, 1);
	/* wrong expected version */
	assert_int_equal(tg_store_set_active(f->s, "act", 2, 2, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_set_active(f->s, "act", 2, 7, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "act"), 0);
	assert_int_equal(v, 1);
	assert_int_equal(tg_store_set_active(f->s, "act", 2, 1, "activate v2"), 0);
	assert_int_equal(tg_store_set_active(f->s, "act", 1, 2, "rollback to v1"), 0);
	assert_int_equal(tg_store_get_active(&v, commit, f->s, "act"), 0);
	assert_int_equal(v, 1);
	assert_string_equal(commit, v1->commit);
	/* no such version to activate */
	assert_int_equal(tg_store_set_active(f->s, "act", 3, 1, "x"), TG_ERR_NOTFOUND);
	assert_int_equal(tg_store_set_active(f->s, "nothere", 1, 0, "x"), TG_ERR_NOTFOUND);
	/* every move is in git's reflog */
	assert_int_equal(st_test_sh(&log, "git --git-dir='%s' reflog show --format=%%gs refs/active/act",
				    f->a), 0);
	assert_string_equal(log, "rollback to v1\nactivate v2\nactivate v1\n");
	free(log);
	/* clear: CAS too */
	assert_int_equal(tg_store_clear_active(f->s, "act", 2, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_clear_active(f->s, "act", 0, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "act"), 0);
	assert_int_equal(v, 1);
	assert_int_equal(tg_store_clear_active(f->s, "act", 1, "deactivate"), 0);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "act"), 0);
	assert_int_equal(v, 0);
	assert_int_equal(tg_store_clear_active(f->s, "act", 1, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_clear_active(f->s, "act", 0, "x"), 0);
	assert_int_equal(tg_store_set_active(f->s, "act", 2, 0, "again"), 0);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "act"), 0);
	assert_int_equal(v, 2);
	/* a reflog message must be one line */
	assert_int_equal(tg_store_set_active(f->s, "act", 1, 2, "two\nlines"), TG_ERR_INVALID);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "act"), 0);
	assert_int_equal(v, 2);
	tg_store_version_free(v1);
	tg_store_version_free(v2);
}

static void test_drop_version(void **state)
{
	st_fixture *f = *state;
	tg_store_version *v1 = NULL, *v2 = NULL, *v3 = NULL;
	tg_store_version_list *l = NULL;
	char **names = NULL;
	size_t n = 0;

	assert_int_equal(st_test_put(&v1, f->s, "drop", "one", "pass"), 0);
	assert_int_equal(st_test_put(&v2, f->s, "drop", "two", "pass"), 0);
	/* not the tip's commit, or not the tip: conflict, nothing changed */
	assert_int_equal(tg_store_drop_version(f->s, "drop", 2, v1->commit, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_drop_version(f->s, "drop", 1, v1->commit, "x"), TG_ERR_CONFLICT);
	/* the active version is never dropped */
	assert_int_equal(tg_store_set_active(f->s, "drop", 2, 0, "activate v2"), 0);
	assert_int_equal(tg_store_drop_version(f->s, "drop", 2, v2->commit, "x"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_clear_active(f->s, "drop", 2, "clear"), 0);
	/* the tip goes back to its parent; the next put takes the number again */
	assert_int_equal(tg_store_drop_version(f->s, "drop", 2, v2->commit, "drop v2"), 0);
	assert_int_equal(tg_store_list_versions(&l, f->s, "drop"), 0);
	assert_int_equal(l->n, 1);
	assert_int_equal(l->items[0].version, 1);
	tg_store_version_list_free(l);
	assert_int_equal(st_test_put(&v3, f->s, "drop", "three", "pass"), 0);
	assert_int_equal(v3->version, 2);
	/* version 1 (after dropping the tip again): the tool's ref goes away */
	assert_int_equal(tg_store_drop_version(f->s, "drop", 2, v3->commit, "drop"), 0);
	assert_int_equal(tg_store_drop_version(f->s, "drop", 1, v1->commit, "drop v1"), 0);
	assert_int_equal(tg_store_list_tools(&names, &n, f->s), 0);
	assert_int_equal(n, 0);
	tg_store_free_names(names, n);
	tg_store_version_free(v1);
	tg_store_version_free(v2);
	tg_store_version_free(v3);
}

static void test_bad_names(void **state)
{
	st_fixture *f = *state;
	static const char *const bad[] = { "../x", "a/b", "A", "", "x.lock", "x y", "-x", "refs/x", "x/../y",
					   "1abc", "a\nb", "_x", "a.b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" };
	size_t i;
	char **names = NULL;
	size_t n = 0;

	assert_int_equal(strlen(bad[TG_ARRAY_SIZE(bad) - 1]), 65);
	for (i = 0; i < TG_ARRAY_SIZE(bad); i++) {
		tg_store_version *v = NULL;
		tg_store_version_list *l = NULL;
		unsigned av = 0;
		char *d = NULL;
		size_t len;
		assert_int_equal(st_test_put(&v, f->s, bad[i], "x", "pass"), TG_ERR_INVALID);
		assert_int_equal(tg_store_get_version(&v, f->s, bad[i], 1), TG_ERR_INVALID);
		assert_int_equal(tg_store_get_file(&d, &len, f->s, bad[i], 1, "tool.c"), TG_ERR_INVALID);
		assert_int_equal(tg_store_list_versions(&l, f->s, bad[i]), TG_ERR_INVALID);
		assert_int_equal(tg_store_get_active(&av, NULL, f->s, bad[i]), TG_ERR_INVALID);
		assert_int_equal(tg_store_set_active(f->s, bad[i], 1, 0, NULL), TG_ERR_INVALID);
		assert_int_equal(tg_store_clear_active(f->s, bad[i], 1, NULL), TG_ERR_INVALID);
		assert_int_equal(tg_store_diff(&d, f->s, bad[i], 1, 1), TG_ERR_INVALID);
	}
	/* 64 characters is the longest valid name */
	assert_int_equal(st_test_put(NULL, f->s,
				     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "x", "pass"), 0);
	assert_int_equal(tg_store_list_tools(&names, &n, f->s), 0);
	assert_int_equal(n, 1);
	tg_store_free_names(names, n);
	/* nothing was written outside refs/tools */
	assert_int_equal(st_test_sh(NULL, "test -z \"$(git --git-dir='%s' for-each-ref --format='%%(refname)' "
				    "| grep -v '^refs/tools/a\\{64\\}$')\"", f->a), 0);
	assert_int_equal(st_test_sh(NULL, "test ! -e '%s/x' && test ! -e '%s/../x'", f->a, f->a), 0);
}

static void test_bad_files(void **state)
{
	st_fixture *f = *state;
	static const char *const bad[] = { "../x", "a/b", ".", "..", "", ".git", ".GIT", ".gitmodules", "a b",
					   "a\\b", "x\n" };
	tg_store_file files[3] = { { "tool.json", "{}", 2 }, { "tool.c", "x", 1 }, { NULL, "y", 1 } };
	tg_store_put_opts o = { .tool = "files", .files = files, .nfiles = 3 };
	char *d = NULL;
	size_t i, len;

	for (i = 0; i < TG_ARRAY_SIZE(bad); i++) {
		files[2].path = bad[i];
		assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	}
	files[2].path = NULL;
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	/* duplicates, missing tool.c or tool.json */
	files[2].path = "tool.c";
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	o.nfiles = 1;
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	o.files = files + 1;
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	o.nfiles = 0;
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	assert_int_equal(tg_store_get_version(NULL == d ? &(tg_store_version *){ NULL } : NULL, f->s, "files", 1),
			 TG_ERR_NOTFOUND);
	/* reading: the same rule */
	o.files = files;
	o.nfiles = 2;
	assert_int_equal(tg_store_put(NULL, f->s, &o), 0);
	assert_int_equal(tg_store_get_file(&d, &len, f->s, "files", 1, "../tool.c"), TG_ERR_INVALID);
	assert_int_equal(tg_store_get_file(&d, &len, f->s, "files", 1, ""), TG_ERR_INVALID);
}

static void test_limits(void **state)
{
	st_fixture *f = *state;
	size_t big = 4u * 1024u * 1024u;
	char *data = malloc(big + 1);
	tg_store_file files[17];
	char names[17][16];
	tg_store_put_opts o = { .tool = "lim", .files = files, .nfiles = 2 };
	size_t i, len;
	char *back = NULL;

	assert_non_null(data);
	memset(data, 'x', big + 1);
	files[0] = (tg_store_file){ "tool.json", "{}", 2 };
	files[1] = (tg_store_file){ "tool.c", data, big + 1 };
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_LIMIT);
	files[1].len = big; /* exactly the cap is fine */
	assert_int_equal(tg_store_put(NULL, f->s, &o), 0);
	assert_int_equal(tg_store_get_file(&back, &len, f->s, "lim", 1, "tool.c"), 0);
	assert_int_equal(len, big);
	free(back);
	files[1].len = 1;
	for (i = 2; i < 17; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		files[i] = (tg_store_file){ names[i], "y", 1 };
	}
	o.nfiles = 16;
	assert_int_equal(tg_store_put(NULL, f->s, &o), 0);
	o.nfiles = 17;
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_LIMIT);
	free(data);
}

static void test_bad_trailers(void **state)
{
	st_fixture *f = *state;
	static const char *const bad[][2] = {
		{ "Toolgate-Verdict", "two\nlines" }, { "Toolgate-Verdict", "cr\rhere" },
		{ "Toolgate-Verdict", "" },          { "Toolgate-Verdict", " lead" },
		{ "Toolgate-Verdict", "trail " },    { "Toolgate-Version", "9" },
		{ "toolgate-version", "9" },         { "Bad Key", "x" },
		{ "", "x" },                         { "Key:", "x" },
		{ "1Key", "x" },                     { "Toolgate-Verdict", "bad\xff utf8" },
	};
	tg_store_file files[2] = { { "tool.json", "{}", 2 }, { "tool.c", "x", 1 } };
	tg_store_trailer tr[1];
	tg_store_put_opts o = { .tool = "tr", .files = files, .nfiles = 2, .trailers = tr, .ntrailers = 1 };
	tg_store_version *v = NULL;
	size_t i;

	for (i = 0; i < TG_ARRAY_SIZE(bad); i++) {
		tr[0] = (tg_store_trailer){ bad[i][0], bad[i][1] };
		assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	}
	tr[0] = (tg_store_trailer){ "Toolgate-Content-Hash", "sha256:abc" };
	o.subject = "two\nline subject";
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	o.subject = NULL;
	o.author_name = "evil <x@y>";
	assert_int_equal(tg_store_put(NULL, f->s, &o), TG_ERR_INVALID);
	o.author_name = NULL;
	assert_int_equal(tg_store_get_version(&v, f->s, "tr", 1), TG_ERR_NOTFOUND);
	assert_int_equal(tg_store_put(&v, f->s, &o), 0);
	assert_string_equal(tg_store_version_trailer(v, "Toolgate-Content-Hash"), "sha256:abc");
	tg_store_version_free(v);
}

static void age_file(const char *path, int seconds)
{
	struct timeval tv[2];

	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= seconds;
	tv[1] = tv[0];
	assert_int_equal(utimes(path, tv), 0);
}

static void test_stale_lock(void **state)
{
	st_fixture *f = *state;
	char *lock = NULL, *fresh = NULL;
	tg_store_version *v = NULL;
	int fd;

	assert_int_equal(st_test_put(NULL, f->s, "x", "one", "pass"), 0);
	assert_true(asprintf(&lock, "%s/refs/tools/x.lock", f->a) > 0);
	assert_true(asprintf(&fresh, "%s/refs/tools/y.lock", f->a) > 0);
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0000000000000000000000000000000000000000\n", 41), 41);
	close(fd);
	age_file(lock, 60);
	fd = open(fresh, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	tg_store_free(f->s);
	f->s = NULL;
	assert_int_equal(tg_store_open(&f->s, f->a, 0), 0);
	assert_int_equal(access(lock, F_OK), -1); /* the stale one is gone */
	assert_int_equal(access(fresh, F_OK), 0); /* a fresh one may be a live writer's */
	assert_int_equal(st_test_put(&v, f->s, "x", "two", "pass"), 0);
	assert_int_equal(v->version, 2);
	tg_store_version_free(v);
	unlink(fresh);
	free(lock);
	free(fresh);
}

/* A lock left by a crash while this handle was open: the writer retries
 * until the lock is old enough to be stale, clears it and succeeds. */
static void test_lock_goes_stale_during_put(void **state)
{
	st_fixture *f = *state;
	char *lock = NULL;
	tg_store_version *v = NULL;
	uint64_t t0;
	int fd;

	assert_int_equal(st_test_put(NULL, f->s, "x", "one", "pass"), 0);
	assert_true(asprintf(&lock, "%s/refs/tools/x.lock", f->a) > 0);
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	age_file(lock, 3); /* 3 s old: not stale yet */
	t0 = tg_now_ms();
	assert_int_equal(st_test_put(&v, f->s, "x", "two", "pass"), 0);
	/* it had to wait until the lock was 5 s old (mtime has 1 s granularity) */
	assert_true(tg_now_ms() - t0 >= 900);
	assert_int_equal(v->version, 2);
	assert_int_equal(access(lock, F_OK), -1);
	tg_store_version_free(v);
	free(lock);
}

static void test_plain_git(void **state)
{
	st_fixture *f = *state;
	char *outp = NULL;

	assert_int_equal(st_test_put(NULL, f->s, "pg", "int a;\n", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "pg", "int b;\n", "reject"), 0);
	assert_int_equal(tg_store_set_active(f->s, "pg", 1, 0, "activate"), 0);
	assert_int_equal(st_test_sh(&outp, ST_TEST_FSCK, f->a), 0);
	assert_string_equal(outp, "");
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' log --format='%%s|%%(trailers:key=Toolgate-Version,valueonly)' refs/tools/pg",
				    f->a), 0);
	assert_string_equal(outp, "pg: version 2|2\n\npg: version 1|1\n\n");
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' show refs/tools/pg:tool.c", f->a), 0);
	assert_string_equal(outp, "int b;\n");
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' rev-parse refs/active/pg^{commit} refs/tools/pg~1",
				    f->a), 0);
	assert_int_equal(strlen(outp), 82);
	assert_memory_equal(outp, outp + 41, 40);
	free(outp);
	/* the branch-free layout: HEAD names main, which does not exist */
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' symbolic-ref HEAD", f->a), 0);
	assert_string_equal(outp, "refs/heads/main\n");
	free(outp);
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' rev-parse -q --verify refs/heads/main", f->a), 1);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' reflog show --format=%%gs refs/tools/pg", f->a), 0);
	assert_string_equal(outp, "toolgate: put pg version 2\ntoolgate: put pg version 1\n");
	free(outp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_missing, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_binary_and_custom, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_history_order, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_list_tools, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_diff, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_diff_manifest, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_active_cas, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_drop_version, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_names, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_limits, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_trailers, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stale_lock, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lock_goes_stale_during_put, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_plain_git, st_fixture_setup, st_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
