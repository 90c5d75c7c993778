/*
 * tests/store/test_store_conc.c: several processes writing one store at
 * once. 4 processes x 250 versions of one tool: nothing lost, versions
 * 1..1000 distinct and consecutive, every submission reachable exactly once.
 * 4 processes racing to create the same new tools. 4 processes moving one
 * active pointer with compare-and-swap: every successful move is in the
 * reflog, no move is lost. 4 processes appending review-note lines to one
 * commit: none is lost. fsync stays on (the default) unless
 * TG_STORE_TEST_NOFSYNC=1 is set in the environment of this test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_test_util.h"

#define NPROC 4
#define NPUT 250

static char *g_dir, *g_repo;

static int setup(void **state)
{
	const char *nf = getenv("TG_STORE_TEST_NOFSYNC");
	tg_store *s = NULL;

	(void)state;
	if (nf && !strcmp(nf, "1"))
		tg_store_set_fsync(0);
	g_dir = st_test_tmpdir();
	assert_non_null(g_dir);
	assert_true(asprintf(&g_repo, "%s/store.git", g_dir) > 0);
	assert_int_equal(tg_store_open(&s, g_repo, 1), 0);
	tg_store_free(s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	st_test_rmrf(g_dir);
	free(g_dir);
	free(g_repo);
	return 0;
}

typedef void (*child_fn)(tg_store *s, int id);

/* Run fn in NPROC processes at once (each opens its own handle); all must
 * exit 0. */
static void run_children(child_fn fn)
{
	pid_t pids[NPROC];
	int i, pipefd[2];
	char go;

	assert_int_equal(pipe(pipefd), 0);
	for (i = 0; i < NPROC; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			tg_store *s = NULL;
			close(pipefd[1]);
			if (tg_store_open(&s, g_repo, 0) < 0)
				_exit(10);
			if (read(pipefd[0], &go, 1) != 0) /* wait until all are ready */
				_exit(11);
			fn(s, i);
			tg_store_free(s);
			_exit(0);
		}
	}
	close(pipefd[0]);
	close(pipefd[1]); /* start */
	for (i = 0; i < NPROC; i++) {
		int st = 0;
		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			fail_msg("child %d: status %d", i, st);
	}
}

static void put_many(tg_store *s, int id)
{
	int j;

	for (j = 0; j < NPUT; j++) {
		char src[64], sub[32];
		tg_store_file files[2] = { { "tool.json", "{}", 2 }, { "tool.c", src, 0 } };
		tg_store_trailer tr[1] = { { "Toolgate-Submitter", sub } };
		tg_store_put_opts o = { .tool = "conc", .files = files, .nfiles = 2, .trailers = tr,
					.ntrailers = 1 };
		tg_store_version *v = NULL;
		snprintf(src, sizeof(src), "/* writer %d, submission %d */\n", id, j);
		files[1].len = strlen(src);
		snprintf(sub, sizeof(sub), "w%d-%d", id, j);
		if (tg_store_put(&v, s, &o) < 0) {
			fprintf(stderr, "writer %d: %s\n", id, tg_error_last()->message);
			_exit(1);
		}
		if (v->version < 1 || v->version > NPROC * NPUT)
			_exit(2);
		tg_store_version_free(v);
	}
}

static void test_4x250(void **state)
{
	tg_store *s = NULL;
	tg_store_version_list *l = NULL;
	tg_store_problem_list *p = NULL;
	static char seen[NPROC][NPUT];
	char *outp = NULL;
	uint64_t t0 = tg_now_ms();
	size_t i;

	(void)state;
	run_children(put_many);
	print_message("4 x %d versions in %llu ms\n", NPUT, (unsigned long long)(tg_now_ms() - t0));
	assert_int_equal(tg_store_open(&s, g_repo, 0), 0);
	assert_int_equal(tg_store_list_versions(&l, s, "conc"), 0);
	assert_int_equal(l->n, NPROC * NPUT);
	for (i = 0; i < l->n; i++) {
		const char *sub = tg_store_version_trailer(&l->items[i], "Toolgate-Submitter");
		int w = -1, j = -1;
		assert_int_equal(l->items[i].version, NPROC * NPUT - i);
		assert_non_null(sub);
		assert_int_equal(sscanf(sub, "w%d-%d", &w, &j), 2);
		assert_true(w >= 0 && w < NPROC && j >= 0 && j < NPUT);
		assert_int_equal(seen[w][j], 0); /* each submission exactly once */
		seen[w][j] = 1;
	}
	tg_store_version_list_free(l);
	assert_int_equal(tg_store_verify(&p, s), 0);
	tg_store_problem_list_free(p);
	tg_store_free(s);
	assert_int_equal(st_test_sh(&outp, ST_TEST_FSCK, g_repo), 0);
	assert_string_equal(outp, "");
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' rev-list --count refs/tools/conc", g_repo), 0);
	assert_string_equal(outp, "1000\n");
	free(outp);
}

static void create_race(tg_store *s, int id)
{
	int t;

	for (t = 0; t < 10; t++) {
		char tool[16];
		snprintf(tool, sizeof(tool), "new_%d", t);
		if (st_test_put(NULL, s, tool, id % 2 ? "odd" : "even", "pass") < 0) {
			fprintf(stderr, "writer %d: %s\n", id, tg_error_last()->message);
			_exit(1);
		}
	}
}

static void test_create_race(void **state)
{
	tg_store *s = NULL;
	char **names = NULL;
	size_t n = 0, i;

	(void)state;
	run_children(create_race);
	assert_int_equal(tg_store_open(&s, g_repo, 0), 0);
	assert_int_equal(tg_store_list_tools(&names, &n, s), 0);
	for (i = 0; i < n; i++) {
		tg_store_version_list *l = NULL;
		if (strncmp(names[i], "new_", 4))
			continue;
		assert_int_equal(tg_store_list_versions(&l, s, names[i]), 0);
		assert_int_equal(l->n, NPROC);
		tg_store_version_list_free(l);
	}
	tg_store_free_names(names, n);
	tg_store_free(s);
}

static void flip_active(tg_store *s, int id)
{
	int moves = 0, tries = 0;

	/* each process makes 25 successful moves v(cur) -> v(cur % 4 + 1) */
	while (moves < 25) {
		unsigned cur = 0;
		int rc;
		if (++tries > 100000)
			_exit(3);
		if (tg_store_get_active(&cur, NULL, s, "flip") < 0)
			_exit(4);
		rc = tg_store_set_active(s, "flip", cur % 4 + 1, cur, "move");
		if (rc == 0)
			moves++;
		else if (rc != TG_ERR_CONFLICT) {
			fprintf(stderr, "mover %d: %s\n", id, tg_error_last()->message);
			_exit(5);
		}
	}
}

static void test_active_race(void **state)
{
	tg_store *s = NULL;
	char *outp = NULL;
	unsigned cur = 0;
	int i;

	(void)state;
	assert_int_equal(tg_store_open(&s, g_repo, 0), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(st_test_put(NULL, s, "flip", "f", "pass"), 0);
	tg_store_free(s);
	run_children(flip_active);
	/* 100 successful CAS moves, each from the value the previous one left:
	 * the pointer went 1,2,3,4,1,... so it ends at 100 % 4 + 0 -> 4 */
	assert_int_equal(tg_store_open(&s, g_repo, 0), 0);
	assert_int_equal(tg_store_get_active(&cur, NULL, s, "flip"), 0);
	assert_int_equal(cur, 4);
	tg_store_free(s);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' reflog show --format=%%gs refs/active/flip | wc -l",
				    g_repo), 0);
	assert_int_equal(atoi(outp), NPROC * 25);
	free(outp);
}

static void toggle_active(tg_store *s, int id)
{
	int done = 0, tries = 0;

	/* 25 successful toggles each: clear when active, activate when not */
	while (done < 25) {
		unsigned cur = 0;
		int rc;
		if (++tries > 100000)
			_exit(3);
		if (tg_store_get_active(&cur, NULL, s, "tog") < 0)
			_exit(4);
		rc = cur ? tg_store_clear_active(s, "tog", cur, "off")
			 : tg_store_set_active(s, "tog", (unsigned)id % 2 + 1, 0, "on");
		if (rc == 0)
			done++;
		else if (rc != TG_ERR_CONFLICT) {
			fprintf(stderr, "toggler %d: %s\n", id, tg_error_last()->message);
			_exit(5);
		}
	}
}

/* 100 successful compare-and-swap toggles from "absent": if any two had
 * both succeeded from the same state, the parity would be off. Each "on"
 * after an "off" starts a new reflog holding exactly that entry. */
static void test_clear_race(void **state)
{
	tg_store *s = NULL;
	char *outp = NULL;
	unsigned cur = 9;
	int i;

	(void)state;
	assert_int_equal(tg_store_open(&s, g_repo, 0), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(st_test_put(NULL, s, "tog", "t", "pass"), 0);
	tg_store_free(s);
	run_children(toggle_active);
	assert_int_equal(tg_store_open(&s, g_repo, 0), 0);
	assert_int_equal(tg_store_get_active(&cur, NULL, s, "tog"), 0);
	assert_int_equal(cur, 0);
	/* one more "on": its reflog holds that one move only */
	assert_int_equal(tg_store_set_active(s, "tog", 2, 0, "last"), 0);
	tg_store_free(s);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' reflog show --format=%%gs refs/active/tog", g_repo), 0);
	assert_string_equal(outp, "last\n");
	free(outp);
}

/* 4 processes creating the same new store at once all get a usable one. */
static void test_create_store_race(void **state)
{
	char *repo2 = NULL, *outp = NULL;
	pid_t pids[NPROC];
	int i, pipefd[2];
	char go;
	tg_store *s = NULL;
	tg_store_problem_list *p = NULL;

	(void)state;
	assert_true(asprintf(&repo2, "%s/new/store.git", g_dir) > 0);
	assert_int_equal(pipe(pipefd), 0);
	for (i = 0; i < NPROC; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char tool[16];
			close(pipefd[1]);
			if (read(pipefd[0], &go, 1) != 0)
				_exit(11);
			if (tg_store_open(&s, repo2, 1) < 0) {
				fprintf(stderr, "opener %d: %s\n", i, tg_error_last()->message);
				_exit(1);
			}
			snprintf(tool, sizeof(tool), "t%d", i);
			if (st_test_put(NULL, s, tool, "x", "pass") < 0)
				_exit(2);
			tg_store_free(s);
			_exit(0);
		}
	}
	close(pipefd[0]);
	close(pipefd[1]);
	for (i = 0; i < NPROC; i++) {
		int st = 0;
		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	assert_int_equal(tg_store_open(&s, repo2, 0), 0);
	assert_int_equal(tg_store_verify(&p, s), 0);
	tg_store_problem_list_free(p);
	tg_store_free(s);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' for-each-ref --format='%%(refname)' | wc -l", repo2), 0);
	assert_int_equal(atoi(outp), NPROC);
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' config core.logAllRefUpdates", repo2), 0);
	assert_string_equal(outp, "always\n");
	free(outp);
	free(repo2);
}

static char g_note_commit[41];

static void append_notes(tg_store *s, int id)
{
	char line[64];
	int j;

	for (j = 0; j < 10; j++) {
		snprintf(line, sizeof(line), "approved by writer %d, act %d", id, j);
		if (tg_store_review_note(s, g_note_commit, line) < 0) {
			fprintf(stderr, "noter %d: %s\n", id, tg_error_last()->message);
			_exit(6);
		}
	}
}

/* 4 processes x 10 review-note lines on one commit: the notes ref moves by
 * compare-and-swap, so all 40 lines are in the note, each once, and the
 * notes ref's history holds one commit per line (appended, never
 * rewritten). A line with a newline, a tab or a control byte, and a note on
 * something that is not a commit, are refused. */
static void test_review_note_race(void **state)
{
	tg_store_version *v = NULL;
	tg_store *s = NULL;
	char *outp = NULL;

	(void)state;
	assert_int_equal(tg_store_open(&s, g_repo, 0), 0);
	assert_int_equal(st_test_put(&v, s, "rn", "x", "pass"), 0);
	memcpy(g_note_commit, v->commit, sizeof(g_note_commit));
	tg_store_version_free(v);
	assert_int_equal(tg_store_review_note(s, g_note_commit, "two\nlines"), TG_ERR_INVALID);
	assert_int_equal(tg_store_review_note(s, g_note_commit, "a\ttab"), TG_ERR_INVALID);
	assert_int_equal(tg_store_review_note(s, g_note_commit, "esc\033[31m"), TG_ERR_INVALID);
	assert_int_equal(tg_store_review_note(s, "0123456789012345678901234567890123456789", "x"),
			 TG_ERR_NOTFOUND);
	tg_store_free(s);
	run_children(append_notes);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' notes --ref=toolgate-review show %s | "
					   "grep -c '^approved by writer [0-3], act [0-9]*$'", g_repo, g_note_commit), 0);
	assert_string_equal(outp, "40\n");
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' notes --ref=toolgate-review show %s | "
					   "sort -u | wc -l", g_repo, g_note_commit), 0);
	assert_int_equal(atoi(outp), 40);
	free(outp);
	assert_int_equal(st_test_sh(&outp, "git --git-dir='%s' rev-list --count refs/notes/toolgate-review",
				    g_repo), 0);
	assert_string_equal(outp, "40\n");
	free(outp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_4x250),
		cmocka_unit_test(test_create_race),
		cmocka_unit_test(test_active_race),
		cmocka_unit_test(test_clear_race),
		cmocka_unit_test(test_create_store_race),
		cmocka_unit_test(test_review_note_race),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
