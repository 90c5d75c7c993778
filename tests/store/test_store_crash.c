/*
 * tests/store/test_store_crash.c: kill -9 during writes. A forked writer
 * loops putting versions of three tools and moving their active pointers;
 * the test SIGKILLs it at a random moment, then (as a restarted registry
 * would) ages any ref .lock the writer left (so it counts as stale), reopens
 * the store, which must clear them, and checks that tg_store_verify finds
 * nothing and `git fsck --strict` is clean. Repeated for many rounds; the
 * versions of every tool stay consecutive and every ref points at an
 * existing commit. fsync stays on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store_test_util.h"

#define ROUNDS 30

static void writer(const char *repo, unsigned seed)
{
	tg_store *s = NULL;
	unsigned i;

	if (tg_store_open(&s, repo, 0) < 0)
		_exit(10);
	for (i = seed;; i++) {
		char tool[8], src[64];
		tg_store_version *v = NULL;
		snprintf(tool, sizeof(tool), "k%u", i % 3);
		snprintf(src, sizeof(src), "/* %u */\n", i);
		if (st_test_put(&v, s, tool, src, "pass") < 0)
			_exit(11);
		if (i % 2 == 0) {
			unsigned cur = 0;
			if (tg_store_get_active(&cur, NULL, s, tool) < 0)
				_exit(12);
			/* activate the new version, or roll back one */
			if (tg_store_set_active(s, tool, i % 4 == 0 || v->version == 1 ? v->version : v->version - 1,
						cur, "move") < 0 &&
			    tg_error_last()->code != TG_ERR_CONFLICT)
				_exit(13);
		}
		tg_store_version_free(v);
	}
}

static void test_kill9(void **state)
{
	char *dir = st_test_tmpdir(), *repo = NULL, *outp = NULL;
	unsigned round, seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	unsigned locks_left = 0, total = 0;
	tg_store *s = NULL;

	(void)state;
	assert_non_null(dir);
	assert_true(asprintf(&repo, "%s/store.git", dir) > 0);
	assert_int_equal(tg_store_open(&s, repo, 1), 0);
	tg_store_free(s);
	print_message("seed %u\n", seed);
	srand(seed);
	for (round = 0; round < ROUNDS; round++) {
		tg_store_problem_list *p = NULL;
		char **names = NULL;
		size_t n = 0, i;
		struct timespec ts;
		int st = 0;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0)
			writer(repo, round * 1000);
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(5 + rand() % 120) * 1000000L;
		nanosleep(&ts, NULL);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL); /* it was still writing */

		/* a lock left behind is taken as stale once old enough */
		if (st_test_sh(&outp, "find '%s/refs' -name '*.lock' | wc -l", repo) == 0)
			locks_left += (unsigned)atoi(outp);
		free(outp);
		assert_int_equal(st_test_sh(NULL, "find '%s' -name '*.lock' -exec touch -d '-1 minute' {} +", repo), 0);
		assert_int_equal(tg_store_open(&s, repo, 0), 0);
		assert_int_equal(st_test_sh(&outp, "find '%s/refs' -name '*.lock'", repo), 0);
		assert_string_equal(outp, "");
		free(outp);
		if (tg_store_verify(&p, s) != 0) {
			for (i = 0; p && i < p->n; i++)
				print_error("%s\n", p->items[i]);
			fail_msg("verify after kill, round %u", round);
		}
		tg_store_problem_list_free(p);
		assert_int_equal(st_test_sh(&outp, ST_TEST_FSCK, repo), 0);
		assert_string_equal(outp, "");
		free(outp);
		/* and it still takes writes */
		assert_int_equal(st_test_put(NULL, s, "after", "x", "pass"), 0);
		assert_int_equal(tg_store_list_tools(&names, &n, s), 0);
		total = 0;
		for (i = 0; i < n; i++) {
			tg_store_version_list *l = NULL;
			assert_int_equal(tg_store_list_versions(&l, s, names[i]), 0);
			total += (unsigned)l->n;
			tg_store_version_list_free(l);
		}
		tg_store_free_names(names, n);
		tg_store_free(s);
	}
	print_message("%u rounds, %u versions, %u ref locks left by kills\n", ROUNDS, total, locks_left);
	assert_true(total > ROUNDS);
	st_test_rmrf(dir);
	free(dir);
	free(repo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill9),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
