/*
 * tests/store/test_store_repl.c: tg_store_verify on clean and damaged
 * stores (damage made with the git CLI), and replication: push to a second
 * bare repository, fetch into a fresh store, same versions and active
 * pointers; diverged histories and a hostile remote are refused (the
 * refused history's objects never enter the store: fetched into a
 * quarantine).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <unistd.h>

#include "store_test_util.h"

static int has_problem(const tg_store_problem_list *l, const char *needle)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strstr(l->items[i], needle))
			return 1;
	return 0;
}

static void test_verify_clean(void **state)
{
	st_fixture *f = *state;
	tg_store_problem_list *p = NULL;
	unsigned i;

	assert_int_equal(tg_store_verify(&p, f->s), 0);
	assert_int_equal(p->n, 0);
	tg_store_problem_list_free(p);
	for (i = 0; i < 3; i++)
		assert_int_equal(st_test_put(NULL, f->s, "ok", "x", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "other", "y", "pass"), 0);
	assert_int_equal(tg_store_set_active(f->s, "ok", 2, 0, NULL), 0);
	assert_int_equal(tg_store_verify(&p, f->s), 0);
	assert_non_null(p);
	assert_int_equal(p->n, 0);
	tg_store_problem_list_free(p);
}

static void test_verify_damage(void **state)
{
	st_fixture *f = *state;
	tg_store_problem_list *p = NULL;

	assert_int_equal(st_test_put(NULL, f->s, "ok", "x", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "ok", "x2", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "other", "y", "pass"), 0);
	/* a commit without the trailer; a gap in the numbering; an active ref
	 * at another tool's commit; a bad tool name; a ref to a missing object;
	 * a version without tool.c */
	assert_int_equal(st_test_sh(NULL,
		"set -e; g=\"git --git-dir=%s\"; t=$($g rev-parse refs/tools/ok^{tree});"
		"c=$(echo nope | $g commit-tree $t); $g update-ref refs/tools/notrailer $c;"
		"c=$(printf 's\\n\\nToolgate-Version: 3\\n' | $g commit-tree $t -p refs/tools/ok~1); $g update-ref refs/tools/gap $c;"
		"$g update-ref refs/active/ok refs/tools/other;"
		"$g update-ref refs/tools/BadName refs/tools/ok;"
		"echo 1111111111111111111111111111111111111111 > %s/refs/tools/ghost;"
		"b=$(echo hi | $g hash-object -w --stdin); t2=$(printf '100644 blob %%s\\ttool.json\\n' $b | $g mktree);"
		"c=$(printf 's\\n\\nToolgate-Version: 1\\n' | $g commit-tree $t2); $g update-ref refs/tools/nosource $c",
		f->a, f->a), 0);
	assert_int_equal(tg_store_verify(&p, f->s), TG_ERR_INTERNAL);
	assert_non_null(p);
	assert_true(has_problem(p, "refs/tools/notrailer: commit"));
	assert_true(has_problem(p, "no valid Toolgate-Version"));
	assert_true(has_problem(p, "refs/tools/gap: commit"));
	assert_true(has_problem(p, "is version 1 where version 2 belongs"));
	assert_true(has_problem(p, "ref refs/active/ok:"));
	assert_true(has_problem(p, "is not a version of ok"));
	assert_true(has_problem(p, "ref refs/tools/BadName: not a valid tool name"));
	assert_true(has_problem(p, "refs/tools/ghost"));
	assert_true(has_problem(p, "refs/tools/nosource version 1: no tool.c"));
	assert_false(has_problem(p, "refs/tools/other"));
	assert_false(has_problem(p, "refs/tools/ok:"));
	assert_int_equal(p->n, 6);
	tg_store_problem_list_free(p);
	/* the store still reads the good tools */
	{
		tg_store_version_list *l = NULL;
		assert_int_equal(tg_store_list_versions(&l, f->s, "ok"), 0);
		assert_int_equal(l->n, 2);
		tg_store_version_list_free(l);
		assert_int_equal(tg_store_list_versions(&l, f->s, "gap"), TG_ERR_INTERNAL);
		assert_null(l);
	}
}

static void test_verify_missing_object(void **state)
{
	st_fixture *f = *state;
	tg_store_problem_list *p = NULL;
	char *data = NULL;
	size_t len;

	assert_int_equal(st_test_put(NULL, f->s, "ok", "unique source 8c1e", "pass"), 0);
	/* remove the loose blob of tool.c */
	assert_int_equal(st_test_sh(NULL, "set -e; g=\"git --git-dir=%s\"; b=$($g rev-parse refs/tools/ok:tool.c);"
				    "rm -f %s/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-)", f->a, f->a), 0);
	assert_int_equal(tg_store_verify(&p, f->s), TG_ERR_INTERNAL);
	assert_int_equal(p->n, 1);
	assert_string_equal(p->items[0], "refs/tools/ok version 1: file tool.c missing");
	tg_store_problem_list_free(p);
	assert_true(tg_store_get_file(&data, &len, f->s, "ok", 1, "tool.c") < 0);
	assert_null(data);
}

static void test_oversized_blob(void **state)
{
	st_fixture *f = *state;
	tg_store_problem_list *p = NULL;
	tg_store_version *v = NULL;
	char *data = NULL;
	size_t len = 7;

	/* a version 2 written by someone else with a 5 MiB tool.c */
	assert_int_equal(st_test_put(NULL, f->s, "big", "small", "pass"), 0);
	assert_int_equal(st_test_sh(NULL,
		"set -e; g=\"git --git-dir=%s\"; b=$(head -c 5242880 /dev/zero | $g hash-object -w --stdin);"
		"m=$($g rev-parse refs/tools/big:tool.json);"
		"t=$(printf '100644 blob %%s\ttool.c\n100644 blob %%s\ttool.json\n' $b $m | $g mktree);"
		"c=$(printf 'big\n\nToolgate-Version: 2\n' | $g commit-tree $t -p refs/tools/big);"
		"$g update-ref refs/tools/big $c", f->a), 0);
	assert_int_equal(tg_store_verify(&p, f->s), 0);
	tg_store_problem_list_free(p);
	assert_int_equal(tg_store_get_version(&v, f->s, "big", 2), 0);
	tg_store_version_free(v);
	assert_int_equal(tg_store_get_file(&data, &len, f->s, "big", 2, "tool.c"), TG_ERR_LIMIT);
	assert_null(data);
	assert_int_equal(len, 0);
	assert_int_equal(tg_store_get_file(&data, &len, f->s, "big", 1, "tool.c"), 0);
	assert_string_equal(data, "small");
	free(data);
}

static void test_failed_cas_leaves_reflog(void **state)
{
	st_fixture *f = *state;
	char *before = NULL, *after = NULL;

	assert_int_equal(st_test_put(NULL, f->s, "r", "1", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "r", "2", "pass"), 0);
	assert_int_equal(tg_store_set_active(f->s, "r", 1, 0, "first"), 0);
	assert_int_equal(st_test_sh(&before, "cat %s/logs/refs/active/r %s/refs/active/r", f->a, f->a), 0);
	assert_int_equal(tg_store_set_active(f->s, "r", 2, 2, "wrong"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_set_active(f->s, "r", 2, 0, "wrong"), TG_ERR_CONFLICT);
	assert_int_equal(tg_store_clear_active(f->s, "r", 2, "wrong"), TG_ERR_CONFLICT);
	assert_int_equal(st_test_sh(&after, "cat %s/logs/refs/active/r %s/refs/active/r", f->a, f->a), 0);
	assert_string_equal(before, after);
	assert_null(strstr(after, "wrong"));
	free(before);
	free(after);
}

/* Same tools, versions (commit ids) and active pointers in both stores. */
static void assert_same(tg_store *x, tg_store *y)
{
	char **nx = NULL, **ny = NULL;
	size_t n1 = 0, n2 = 0, i, j;

	assert_int_equal(tg_store_list_tools(&nx, &n1, x), 0);
	assert_int_equal(tg_store_list_tools(&ny, &n2, y), 0);
	assert_int_equal(n1, n2);
	for (i = 0; i < n1; i++) {
		tg_store_version_list *lx = NULL, *ly = NULL;
		unsigned ax, ay;
		char cx[41], cy[41];
		assert_string_equal(nx[i], ny[i]);
		assert_int_equal(tg_store_list_versions(&lx, x, nx[i]), 0);
		assert_int_equal(tg_store_list_versions(&ly, y, ny[i]), 0);
		assert_int_equal(lx->n, ly->n);
		for (j = 0; j < lx->n; j++)
			assert_string_equal(lx->items[j].commit, ly->items[j].commit);
		tg_store_version_list_free(lx);
		tg_store_version_list_free(ly);
		assert_int_equal(tg_store_get_active(&ax, cx, x, nx[i]), 0);
		assert_int_equal(tg_store_get_active(&ay, cy, y, ny[i]), 0);
		assert_int_equal(ax, ay);
		assert_string_equal(cx, cy);
	}
	tg_store_free_names(nx, n1);
	tg_store_free_names(ny, n2);
}

static void test_replicate(void **state)
{
	st_fixture *f = *state;
	tg_store *sc = NULL;
	tg_store_version *v = NULL;
	tg_store_problem_list *p = NULL;
	unsigned act;
	char *url = NULL, *outp = NULL;

	assert_int_equal(st_test_put(NULL, f->s, "alpha", "a1", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "a2", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "beta", "b1", "pass"), 0);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 2, 0, "on"), 0);
	assert_int_equal(st_test_sh(NULL, "git init -q --bare '%s'", f->b), 0);
	assert_int_equal(tg_store_push(f->s, f->b), 0);
	assert_int_equal(st_test_sh(&outp, ST_TEST_FSCK, f->b), 0);
	assert_string_equal(outp, "");
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' for-each-ref --format='%%(refname)'", f->b), 0);
	assert_string_equal(outp, "refs/active/alpha\nrefs/tools/alpha\nrefs/tools/beta\n");
	free(outp);

	/* a fresh store fetches everything back (file:// URL this time) */
	assert_true(asprintf(&url, "file://%s", f->b) > 0);
	assert_int_equal(tg_store_open(&sc, f->c, 1), 0);
	assert_int_equal(tg_store_fetch(sc, url), 0);
	assert_same(f->s, sc);
	assert_int_equal(tg_store_verify(&p, sc), 0);
	tg_store_problem_list_free(p);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' for-each-ref --format='%%(refname)'", f->c), 0);
	assert_string_equal(outp, "refs/active/alpha\nrefs/tools/alpha\nrefs/tools/beta\n"); /* no temp refs */
	free(outp);

	/* C moves on (new version, rollback), pushes; A fetches and agrees */
	assert_int_equal(st_test_put(&v, sc, "alpha", "a3", "pass"), 0);
	assert_int_equal(v->version, 3);
	tg_store_version_free(v);
	assert_int_equal(tg_store_set_active(sc, "alpha", 1, 2, "rollback"), 0);
	assert_int_equal(tg_store_set_active(sc, "beta", 1, 0, "on"), 0);
	assert_int_equal(tg_store_push(sc, url), 0);
	assert_int_equal(tg_store_fetch(f->s, f->b), 0);
	assert_same(f->s, sc);
	assert_int_equal(tg_store_get_active(&act, NULL, f->s, "alpha"), 0);
	assert_int_equal(act, 1);
	/* fetching again changes nothing */
	assert_int_equal(tg_store_fetch(f->s, f->b), 0);
	assert_same(f->s, sc);

	/* diverged: A and C both write version 4 */
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "a4 from A", "pass"), 0);
	assert_int_equal(st_test_put(NULL, sc, "alpha", "a4 from C", "pass"), 0);
	assert_int_equal(tg_store_push(f->s, f->b), 0);
	assert_int_equal(tg_store_push(sc, url), TG_ERR_CONFLICT); /* not overwritten */
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' show refs/tools/alpha:tool.c", f->b), 0);
	assert_string_equal(outp, "a4 from A");
	free(outp);
	assert_int_equal(tg_store_fetch(sc, url), TG_ERR_CONFLICT);
	{
		char *data = NULL;
		size_t len;
		assert_int_equal(tg_store_get_file(&data, &len, sc, "alpha", 4, "tool.c"), 0);
		assert_string_equal(data, "a4 from C"); /* C keeps its own history */
		free(data);
	}
	tg_store_free(sc);
	free(url);
}

static void test_hostile_remote(void **state)
{
	st_fixture *f = *state;
	tg_store *sc = NULL;
	char **names = NULL;
	size_t n = 0;
	tg_store_problem_list *p = NULL;
	unsigned act = 9;

	assert_int_equal(st_test_put(NULL, f->s, "good", "g", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "other", "o", "pass"), 0);
	assert_int_equal(st_test_sh(NULL, "git init -q --bare '%s'", f->b), 0);
	assert_int_equal(tg_store_push(f->s, f->b), 0);
	/* the remote adds a tool whose history has no trailers, a ref with a bad
	 * name, a ref outside the namespaces and an active ref at a foreign
	 * commit */
	assert_int_equal(st_test_sh(NULL,
		"set -e; g=\"git --git-dir=%s\"; t=$($g rev-parse refs/tools/good^{tree});"
		"c=$(echo evil | $g commit-tree $t); $g update-ref refs/tools/evil $c;"
		"$g update-ref refs/tools/Upper refs/tools/good; $g update-ref refs/heads/x refs/tools/good;"
		"$g update-ref refs/active/good refs/tools/other", f->b), 0);
	assert_int_equal(tg_store_open(&sc, f->c, 1), 0);
	assert_int_equal(tg_store_fetch(sc, f->b), TG_ERR_CONFLICT);
	assert_non_null(strstr(tg_error_last()->message, "2 problem(s)"));
	assert_int_equal(tg_store_list_tools(&names, &n, sc), 0);
	assert_int_equal(n, 2); /* good and other, not evil */
	assert_string_equal(names[0], "good");
	assert_string_equal(names[1], "other");
	tg_store_free_names(names, n);
	assert_int_equal(tg_store_get_active(&act, NULL, sc, "good"), 0);
	assert_int_equal(act, 0);
	assert_int_equal(tg_store_verify(&p, sc), 0);
	tg_store_problem_list_free(p);
	/* the refused history's commit stayed in the quarantine, which is gone */
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' cat-file -e $(git --git-dir='%s' rev-parse "
				    "refs/tools/evil) 2>/dev/null", f->c, f->b), 1);
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' cat-file -e refs/tools/good", f->c), 0);
	assert_int_equal(st_test_sh(NULL, "test -z \"$(ls -d '%s'/toolgate-quarantine-* 2>/dev/null)\"",
				    f->c), 0);
	tg_store_free(sc);
}

static void test_bad_urls(void **state)
{
	st_fixture *f = *state;

	assert_int_equal(tg_store_push(f->s, "ftp://example.org/x.git"), TG_ERR_INVALID);
	assert_int_equal(tg_store_push(f->s, "http://example.org/x.git"), TG_ERR_INVALID);
	assert_int_equal(tg_store_push(f->s, "git://"), TG_ERR_INVALID);
	assert_int_equal(tg_store_fetch(f->s, "example.org:x.git"), TG_ERR_INVALID);
	assert_int_equal(tg_store_fetch(f->s, ""), TG_ERR_INVALID);
	assert_int_equal(tg_store_fetch(f->s, "/a\nb"), TG_ERR_INVALID);
	assert_int_equal(st_test_put(NULL, f->s, "x", "x", "pass"), 0);
	assert_true(tg_store_push(f->s, "/nonexistent/dir.git") < 0);
	assert_true(tg_store_fetch(f->s, "/nonexistent/dir.git") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_verify_clean, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_verify_damage, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_verify_missing_object, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_oversized_blob, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_failed_cas_leaves_reflog, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_replicate, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_remote, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_urls, st_fixture_setup, st_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
