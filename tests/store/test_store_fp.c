/*
 * tests/store/test_store_fp.c: tg_store_fingerprint. Every kind of ref
 * update changes it (put, set_active, clear_active, a push and a fetch into
 * the store, `git pack-refs --all`, an in-place edit of a ref file even with
 * its mtime put back); reads, lock files and failed compare-and-swaps do
 * not; files past the 2-second racy window stop being content-hashed (the
 * value changes once, then is stable); a symlink among the refs gives the
 * "changed" answer; a missing store is TG_ERR_NOTFOUND.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_test_util.h"

/* The fingerprint of path, asserting a real (hex) answer. */
static void fp(char out[65], const char *path)
{
	size_t i;

	assert_int_equal(tg_store_fingerprint(out, path), 0);
	assert_int_equal(strlen(out), 64);
	for (i = 0; i < 64; i++)
		assert_non_null(strchr("0123456789abcdef", out[i]));
}

/* Assert the fingerprint changed from prev, and move prev to the new one. */
static void assert_changed(char prev[65], const char *path)
{
	char now[65];

	fp(now, path);
	assert_string_not_equal(now, prev);
	memcpy(prev, now, 65);
}

static void assert_same(const char prev[65], const char *path)
{
	char now[65];

	fp(now, path);
	assert_string_equal(now, prev);
}

static void test_fp_updates_change_reads_do_not(void **state)
{
	st_fixture *f = *state;
	tg_store_version *v = NULL;
	tg_store_version_list *l = NULL;
	tg_store_problem_list *p = NULL;
	tg_store *s2 = NULL;
	char **names = NULL, *data = NULL, *diff = NULL;
	size_t n = 0, len = 0;
	unsigned active = 9;
	char cur[65], again[65];

	fp(cur, f->a);
	fp(again, f->a);
	assert_string_equal(cur, again);

	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int a;", "pass"), 0);
	assert_changed(cur, f->a);
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int b;", "pass"), 0);
	assert_changed(cur, f->a);
	assert_int_equal(st_test_put(NULL, f->s, "beta", "int c;", "pass"), 0);
	assert_changed(cur, f->a);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 1, 0, "t"), 0);
	assert_changed(cur, f->a);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 2, 1, "t"), 0);
	assert_changed(cur, f->a);
	/* a lost compare-and-swap writes nothing */
	assert_int_equal(tg_store_set_active(f->s, "alpha", 1, 1, "t"), TG_ERR_CONFLICT);
	tg_error_clear();
	assert_same(cur, f->a);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 1, 2, "t"), 0);
	assert_changed(cur, f->a);
	assert_int_equal(tg_store_clear_active(f->s, "alpha", 1, "t"), 0);
	assert_changed(cur, f->a);
	assert_int_equal(tg_store_set_active(f->s, "beta", 1, 0, "t"), 0);
	assert_changed(cur, f->a);

	/* every read, and opening a second handle */
	assert_int_equal(tg_store_get_version(&v, f->s, "alpha", 2), 0);
	tg_store_version_free(v);
	assert_int_equal(tg_store_list_versions(&l, f->s, "alpha"), 0);
	tg_store_version_list_free(l);
	assert_int_equal(tg_store_list_tools(&names, &n, f->s), 0);
	assert_int_equal(n, 2);
	tg_store_free_names(names, n);
	assert_int_equal(tg_store_get_file(&data, &len, f->s, "alpha", 1, "tool.c"), 0);
	free(data);
	assert_int_equal(tg_store_get_active(&active, NULL, f->s, "alpha"), 0);
	assert_int_equal(active, 0);
	assert_int_equal(tg_store_diff(&diff, f->s, "alpha", 1, 2), 0);
	free(diff);
	assert_int_equal(tg_store_verify(&p, f->s), 0);
	tg_store_problem_list_free(p);
	assert_int_equal(tg_store_open(&s2, f->a, 0), 0);
	tg_store_free(s2);
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' log --all --oneline >/dev/null 2>&1",
				    f->a), 0);
	assert_same(cur, f->a);

	/* a ref lock file left behind is no ref */
	assert_int_equal(st_test_sh(NULL, "touch '%s/refs/tools/gamma.lock'", f->a), 0);
	assert_same(cur, f->a);
	assert_int_equal(st_test_sh(NULL, "rm '%s/refs/tools/gamma.lock'", f->a), 0);

	/* packing moves every ref into packed-refs; a put after it too */
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' pack-refs --all", f->a), 0);
	assert_changed(cur, f->a);
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int d;", "pass"), 0);
	assert_changed(cur, f->a);
	assert_int_equal(st_test_sh(NULL, "git --git-dir='%s' pack-refs --all", f->a), 0);
	assert_changed(cur, f->a);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 3, 0, "t"), 0);
	assert_changed(cur, f->a);
}

static void test_fp_push_fetch(void **state)
{
	st_fixture *f = *state;
	tg_store *sb = NULL;
	char fa[65], fb[65];

	assert_int_equal(tg_store_open(&sb, f->b, 1), 0);
	fp(fb, f->b);
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int a;", "pass"), 0);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 1, 0, "t"), 0);
	/* a push into b changes b's fingerprint, not a's */
	fp(fa, f->a);
	assert_int_equal(tg_store_push(f->s, f->b), 0);
	assert_same(fa, f->a);
	assert_changed(fb, f->b);
	/* a fetch into b (new version in a) changes b's */
	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int b;", "pass"), 0);
	assert_int_equal(tg_store_fetch(sb, f->a), 0);
	assert_changed(fb, f->b);
	/* a fetch with nothing new changes nothing */
	assert_int_equal(tg_store_fetch(sb, f->a), 0);
	assert_same(fb, f->b);
	tg_store_free(sb);
}

/* A hand edit of a ref file in place, same size, same inode, mtime put
 * back: the ctime still moves (and makes the file racy, content-hashed). */
static void test_fp_in_place_edit(void **state)
{
	st_fixture *f = *state;
	tg_store_version *v1 = NULL, *v2 = NULL;
	_cleanup_free_ char *ref = NULL;
	struct stat st;
	struct timespec times[2];
	char cur[65], line[42];
	int fd;

	assert_int_equal(st_test_put(&v1, f->s, "alpha", "int a;", "pass"), 0);
	assert_int_equal(st_test_put(&v2, f->s, "alpha", "int b;", "pass"), 0);
	assert_int_equal(tg_store_set_active(f->s, "alpha", 2, 0, "t"), 0);
	assert_true(asprintf(&ref, "%s/refs/active/alpha", f->a) > 0);
	assert_int_equal(stat(ref, &st), 0);
	fp(cur, f->a);
	fd = open(ref, O_WRONLY);
	assert_true(fd >= 0);
	snprintf(line, sizeof(line), "%s\n", v1->commit);
	assert_int_equal(pwrite(fd, line, 41, 0), 41);
	close(fd);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, ref, times, 0), 0);
	assert_changed(cur, f->a);
	tg_store_version_free(v1);
	tg_store_version_free(v2);
}

/* Racy files are content-hashed; once past the window they are not: the
 * value changes once, then stays. */
static void test_fp_racy_window(void **state)
{
	st_fixture *f = *state;
	char cur[65];

	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int a;", "pass"), 0);
	fp(cur, f->a);
	assert_same(cur, f->a);
	sleep(3);
	assert_changed(cur, f->a);
	assert_same(cur, f->a);
}

static void test_fp_no_cheap_answer(void **state)
{
	st_fixture *f = *state;
	_cleanup_free_ char *missing = NULL;
	char out[65];

	assert_int_equal(st_test_put(NULL, f->s, "alpha", "int a;", "pass"), 0);
	assert_int_equal(st_test_sh(NULL, "ln -s alpha '%s/refs/tools/link'", f->a), 0);
	assert_int_equal(tg_store_fingerprint(out, f->a), 1);
	assert_string_equal(out, TG_STORE_FINGERPRINT_CHANGED);
	assert_int_equal(st_test_sh(NULL, "rm '%s/refs/tools/link'", f->a), 0);
	fp(out, f->a);
	assert_true(asprintf(&missing, "%s/nope.git", f->dir) > 0);
	assert_int_equal(tg_store_fingerprint(out, missing), TG_ERR_NOTFOUND);
	tg_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fp_updates_change_reads_do_not, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_fp_push_fetch, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_fp_in_place_edit, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_fp_racy_window, st_fixture_setup, st_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_fp_no_cheap_answer, st_fixture_setup, st_fixture_teardown),
	};
	tg_store_set_fsync(0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
