/*
 * tests/store/test_store_snap.c: tg_store_snapshot_refs (store/snapshot.c),
 * the one-pass read of the refs that `toolgate verify` holds. With a
 * snapshot held the answers are those without one: tools listed, active
 * versions, tips, and tg_store_verify's problems, for loose refs, for refs
 * moved into packed-refs by `git pack-refs --all` with a newer loose ref
 * hiding a packed one, and for a symbolic ref under refs/tools/; a ref file
 * holding garbage fails its lookup as without a snapshot, and verify with
 * the snapshot reports it (libgit2's iterator skips it); a ref written through the handle drops the snapshot (the
 * next read sees the write); a ref moved by another process after the
 * snapshot is not seen until it is released (the snapshot is a point in
 * time).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "store_test_util.h"

/* Everything a verify reads, as one string: tools, active versions and
 * commits, versions per tool, and the store's problems. */
static char *state_of(tg_store *s)
{
	tg_store_problem_list *p = NULL;
	char **names = NULL, *out = NULL;
	size_t n = 0, i;
	tg_buf b = TG_BUF_INIT(0);

	assert_int_equal(tg_store_list_tools(&names, &n, s), 0);
	for (i = 0; i < n; i++) {
		tg_store_version_list *l = NULL;
		char commit[41];
		unsigned v = 0;
		int rc = tg_store_get_active(&v, commit, s, names[i]);
		tg_buf_printf(&b, "%s active=%u %s rc=%d;", names[i], v, rc == 0 ? commit : "-", rc);
		tg_error_clear();
		rc = tg_store_list_versions(&l, s, names[i]);
		tg_buf_printf(&b, " versions=%zu rc=%d;", l ? l->n : 0, rc);
		tg_error_clear();
		tg_store_version_list_free(l);
	}
	tg_store_free_names(names, n);
	tg_store_verify(&p, s);
	tg_error_clear();
	for (i = 0; p && i < p->n; i++)
		tg_buf_printf(&b, " problem: %s;", p->items[i]);
	if (!p)
		tg_buf_printf(&b, " verify did not run;");
	tg_store_problem_list_free(p);
	tg_buf_append(&b, "", 1);
	out = strdup(b.ptr);
	tg_buf_free(&b);
	assert_non_null(out);
	return out;
}

/* The same answers with and without a snapshot; returns them. */
static char *assert_snapshot_agrees(tg_store *s)
{
	char *plain = state_of(s), *snap;

	assert_int_equal(tg_store_snapshot_refs(s), 0);
	snap = state_of(s);
	tg_store_snapshot_release(s);
	assert_string_equal(snap, plain);
	free(snap);
	return plain;
}

static void test_snapshot_matches_libgit2(void **state)
{
	st_fixture *f = *state;
	char *st, want[64];

	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int a;", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int b;", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "beta", "int c;", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "gamma", "int d;", "pass"), 0);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 2, 0, "t"), 0);
	assert_int_equal(tg_store_set_active(f->s, "beta", 1, 0, "t"), 0);
	/* loose refs */
	st = assert_snapshot_agrees(f->s);
	assert_non_null(strstr(st, "alpha active=2 "));
	assert_null(strstr(st, "problem"));
	free(st);

	/* packed, then a loose ref newer than its packed value */
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' pack-refs --all", f->a), 0);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 1, 2, "t"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "beta", "int e;", "pass"), 0);
	st = assert_snapshot_agrees(f->s);
	assert_non_null(strstr(st, "alpha active=1 "));
	assert_non_null(strstr(st, "beta active=1 "));
	assert_non_null(strstr(st, "versions=2 rc=0;gamma "));
	assert_null(strstr(st, "problem"));
	free(st);

	/* a symbolic ref under refs/tools/: left to libgit2 */
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' symbolic-ref refs/tools/delta "
				    "refs/tools/gamma", f->a), 0);
	st = assert_snapshot_agrees(f->s);
	assert_non_null(strstr(st, "delta active=0"));
	free(st);

	/* garbage in a ref file: looked up through libgit2, which fails as
	 * without a snapshot (TG_ERR_IO); libgit2's iterator skips the file, the
	 * snapshot reports it */
	assert_int_equal(st_test_sh(NULL, "printf 'not a ref\\n' > '%s/refs/active/gamma'", f->a), 0);
	snprintf(want, sizeof(want), "gamma active=0 - rc=%d;", TG_ERR_IO);
	st = state_of(f->s);
	assert_non_null(strstr(st, want));
	assert_null(strstr(st, "problem"));
	free(st);
	assert_int_equal(tg_store_snapshot_refs(f->s), 0);
	st = state_of(f->s);
	tg_store_snapshot_release(f->s);
	assert_non_null(strstr(st, want));
	assert_non_null(strstr(st, "problem: ref refs/active/gamma: does not resolve;"));
	free(st);
}

static void test_snapshot_writes_and_time(void **state)
{
	st_fixture *f = *state;
	tg_store *other = NULL;
	unsigned v = 0;

	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int a;", "pass"), 0);
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int b;", "pass"), 0);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 1, 0, "t"), 0);
	assert_int_equal(tg_store_snapshot_refs(f->s), 0);
	/* a write through this handle drops the snapshot: the read sees it */
	assert_int_equal(tg_store_set_active(f->s, "alpha", 2, 1, "t"), 0);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "alpha"), 0);
	assert_int_equal(v, 2);

	/* another process's write after the snapshot: seen once released */
	assert_int_equal(tg_store_snapshot_refs(f->s), 0);
	assert_int_equal(tg_store_open(&other, f->a, 0), 0);
	assert_int_equal(tg_store_set_active(other, "alpha", 1, 2, "t"), 0);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "alpha"), 0);
	assert_int_equal(v, 2);
	tg_store_snapshot_release(f->s);
	assert_int_equal(tg_store_get_active(&v, NULL, f->s, "alpha"), 0);
	assert_int_equal(v, 1);
	tg_store_free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_snapshot_matches_libgit2, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_writes_and_time, st_fixture_setup, st_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
