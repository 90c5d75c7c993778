/*
 * tests/registry/test_stmt_cache.c: the handle's prepared-statement cache
 * (registry/stmt_cache.c) on a real registry.db.
 *  - the same SQL text gives the same sqlite3_stmt after release, also when
 *    the text comes from another buffer;
 *  - a nested use of a text still in use gets another statement, and the
 *    cached one comes back once released;
 *  - a released statement keeps no bound value and no read transaction
 *    (a write by another connection is seen at the next use);
 *  - the cache never holds more than REG_STMT_CACHE_MAX statements, keeps
 *    the one in use while evicting, and a reused buffer holding another
 *    text never gets the old text's statement;
 *  - a schema change made by another connection (ALTER TABLE ADD COLUMN)
 *    is seen by a cached SELECT *;
 *  - a bad text fails with reg_sqlerr's exact message and caches nothing;
 *  - a transaction's BEGIN IMMEDIATE and COMMIT are compiled once per
 *    handle (reg_exec_cached) and fail with reg_exec's exact message;
 *  - freeing the cache finalizes every statement of the connection;
 *  - a forked child never gets the parent's cached statement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "registry/replica/replica.h"
#include "test_support.h"

static const char meta_sql[] = "SELECT value FROM meta WHERE key = ?1";

static int setup(void **state)
{
	_cleanup_free_ char *home = tgt_home_make("tg_stmt_cache");
	tg_registry *r = NULL;

	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	tg_registry *r = *state;
	char *home = strdup(r->home);

	tg_registry_free(r);
	assert_non_null(home);
	tgt_home_remove(home);
	return 0;
}

/* Another connection to the same registry.db runs sql. */
static void other_exec(tg_registry *r, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(r->db_path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void same_text_same_stmt(void **state)
{
	tg_registry *r = *state;
	_cleanup_free_ char *copy = strdup(meta_sql);
	sqlite3_stmt *st = NULL, *first;
	size_t n;

	assert_int_equal(reg_prepare(r, &st, meta_sql), 0);
	first = st;
	n = reg_stmt_cache_size(r);
	reg_finalizep(&st);
	assert_null(st);
	assert_int_equal(reg_prepare(r, &st, meta_sql), 0);
	assert_ptr_equal(st, first);
	reg_finalizep(&st);
	/* the same text in another buffer */
	assert_non_null(copy);
	assert_int_equal(reg_prepare(r, &st, copy), 0);
	assert_ptr_equal(st, first);
	reg_finalizep(&st);
	assert_int_equal(reg_stmt_cache_size(r), n);
}

static void nested_use(void **state)
{
	tg_registry *r = *state;
	_cleanup_stmt_ sqlite3_stmt *outer = NULL;
	sqlite3_stmt *inner = NULL, *cached;
	size_t n;

	assert_int_equal(reg_prepare(r, &outer, meta_sql), 0);
	cached = outer;
	n = reg_stmt_cache_size(r);
	sqlite3_bind_text(outer, 1, "generation", -1, SQLITE_STATIC);
	assert_int_equal(reg_step(outer), SQLITE_ROW);
	/* the outer one is mid-row: the inner use needs its own */
	assert_int_equal(reg_prepare(r, &inner, meta_sql), 0);
	assert_non_null(inner);
	assert_ptr_not_equal(inner, outer);
	sqlite3_bind_text(inner, 1, "db_id", -1, SQLITE_STATIC);
	assert_int_equal(reg_step(inner), SQLITE_ROW);
	assert_int_equal(strlen((const char *)sqlite3_column_text(inner, 0)), 32);
	reg_finalizep(&inner);
	assert_int_equal(reg_stmt_cache_size(r), n); /* the inner one was not kept */
	/* the outer one was not disturbed */
	assert_int_equal(sqlite3_column_int64(outer, 0) >= 1, 1);
	assert_int_equal(reg_step(outer), SQLITE_DONE);
	reg_finalizep(&outer);
	assert_int_equal(reg_prepare(r, &outer, meta_sql), 0);
	assert_ptr_equal(outer, cached);
}

static void no_binding_or_snapshot_kept(void **state)
{
	tg_registry *r = *state;
	sqlite3_stmt *st = NULL, *first;
	int64_t v = 0;

	assert_int_equal(reg_prepare(r, &st, "SELECT ?1"), 0);
	first = st;
	assert_int_equal(sqlite3_bind_int64(st, 1, 42), SQLITE_OK);
	assert_int_equal(reg_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), 42);
	reg_finalizep(&st); /* released mid-result, with a bound value */
	assert_int_equal(sqlite3_stmt_busy(first), 0);
	assert_int_equal(reg_prepare(r, &st, "SELECT ?1"), 0);
	assert_ptr_equal(st, first);
	assert_int_equal(reg_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 0), SQLITE_NULL);
	reg_finalizep(&st);

	/* a read left mid-result ends its read transaction at release: the
	 * next use sees what another connection wrote meanwhile */
	assert_int_equal(reg_meta_set_int(r, "stmt_test", 1), 0);
	assert_int_equal(reg_prepare(r, &st, meta_sql), 0);
	sqlite3_bind_text(st, 1, "stmt_test", -1, SQLITE_STATIC);
	assert_int_equal(reg_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), 1);
	reg_finalizep(&st);
	other_exec(r, "UPDATE meta SET value = 2 WHERE key = 'stmt_test'");
	assert_int_equal(reg_meta_get_int(r, "stmt_test", &v), 1);
	assert_int_equal(v, 2);
}

static void bounded(void **state)
{
	tg_registry *r = *state;
	_cleanup_stmt_ sqlite3_stmt *held = NULL;
	sqlite3_stmt *st = NULL;
	char buf[64];
	int i;

	assert_int_equal(reg_prepare(r, &held, "SELECT 'held'"), 0);
	for (i = 0; i < 3 * REG_STMT_CACHE_MAX; i++) {
		/* one buffer for every text: keyed by the text, not the pointer */
		snprintf(buf, sizeof(buf), "SELECT %d", i);
		assert_int_equal(reg_prepare(r, &st, buf), 0);
		assert_int_equal(reg_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), i);
		reg_finalizep(&st);
		assert_true(reg_stmt_cache_size(r) <= REG_STMT_CACHE_MAX);
	}
	assert_int_equal(reg_stmt_cache_size(r), REG_STMT_CACHE_MAX);
	/* the statement in use was not evicted */
	assert_int_equal(reg_step(held), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(held, 0), "held");
	/* recent texts are still cached, and come back with their own value */
	snprintf(buf, sizeof(buf), "SELECT %d", 3 * REG_STMT_CACHE_MAX - 1);
	assert_int_equal(reg_prepare(r, &st, buf), 0);
	assert_int_equal(reg_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 3 * REG_STMT_CACHE_MAX - 1);
	reg_finalizep(&st);
	assert_int_equal(reg_stmt_cache_size(r), REG_STMT_CACHE_MAX);
}

static void schema_change_elsewhere(void **state)
{
	tg_registry *r = *state;
	sqlite3_stmt *st = NULL, *first;

	assert_int_equal(reg_exec(r, "CREATE TABLE stmt_t(a INTEGER); "
				     "INSERT INTO stmt_t VALUES(1)"), 0);
	assert_int_equal(reg_prepare(r, &st, "SELECT * FROM stmt_t"), 0);
	first = st;
	assert_int_equal(reg_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_count(st), 1);
	reg_finalizep(&st);
	other_exec(r, "ALTER TABLE stmt_t ADD COLUMN b INTEGER NOT NULL DEFAULT 7");
	assert_int_equal(reg_prepare(r, &st, "SELECT * FROM stmt_t"), 0);
	assert_ptr_equal(st, first);
	assert_int_equal(reg_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_count(st), 2);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	assert_int_equal(sqlite3_column_int(st, 1), 7);
	reg_finalizep(&st);
}

static void prepare_error_exact(void **state)
{
	tg_registry *r = *state;
	sqlite3_stmt *st = NULL;
	size_t n = reg_stmt_cache_size(r);

	assert_int_equal(reg_prepare(r, &st, "SELEC 1"), TG_ERR_INTERNAL);
	assert_null(st);
	assert_string_equal(tg_error_last()->message,
			    "registry database: prepare: near \"SELEC\": syntax error");
	assert_int_equal(reg_prepare(r, &st, "SELECT nope FROM meta"), TG_ERR_INTERNAL);
	assert_string_equal(tg_error_last()->message,
			    "registry database: prepare: no such column: nope");
	assert_int_equal(reg_stmt_cache_size(r), n);
	tg_error_clear();
}

static void transaction_statements(void **state)
{
	tg_registry *r = *state;
	size_t n = 0;
	int64_t v = 0;
	int i;

	for (i = 1; i <= 3; i++) {
		assert_int_equal(reg_begin(r), 0);
		assert_int_equal(reg_meta_set_int(r, "stmt_txn", i), 0);
		assert_int_equal(reg_commit_nosync(r), 0);
		if (i == 1)
			n = reg_stmt_cache_size(r);
	}
	assert_int_equal(reg_stmt_cache_size(r), n);
	assert_int_equal(reg_meta_get_int(r, "stmt_txn", &v), 1);
	assert_int_equal(v, 3);
	/* a rolled back transaction leaves nothing, and the next one works */
	assert_int_equal(reg_begin(r), 0);
	assert_int_equal(reg_meta_set_int(r, "stmt_txn", 9), 0);
	reg_rollback(r);
	assert_int_equal(reg_meta_get_int(r, "stmt_txn", &v), 1);
	assert_int_equal(v, 3);
	assert_int_equal(reg_exec_cached(r, "COMMIT"), TG_ERR_INTERNAL);
	assert_string_equal(tg_error_last()->message, "registry database: exec: cannot commit - "
						      "no transaction is active");
	assert_int_equal(reg_exec_cached(r, "COMMT"), TG_ERR_INTERNAL);
	assert_string_equal(tg_error_last()->message,
			    "registry database: exec: near \"COMMT\": syntax error");
	tg_error_clear();
	assert_int_equal(reg_stmt_cache_size(r), n);
}

static void free_finalizes_all(void **state)
{
	tg_registry *r = *state;
	sqlite3_stmt *st = NULL;

	assert_int_equal(reg_prepare(r, &st, meta_sql), 0);
	reg_finalizep(&st);
	assert_int_equal(reg_prepare(r, &st, "SELECT 1"), 0);
	reg_finalizep(&st);
	assert_non_null(sqlite3_next_stmt(r->db, NULL));
	reg_stmt_cache_free(r);
	assert_null(sqlite3_next_stmt(r->db, NULL));
	assert_int_equal(reg_stmt_cache_size(r), 0);
	/* the handle goes on working, with a new cache */
	assert_int_equal(reg_prepare(r, &st, "SELECT 1"), 0);
	assert_int_equal(reg_stmt_cache_size(r), 1);
	reg_finalizep(&st);
}

static void fork_child_uncached(void **state)
{
	tg_registry *r = *state;
	sqlite3_stmt *st = NULL, *parents;
	pid_t pid;
	int status = 0;

	assert_int_equal(reg_prepare(r, &st, meta_sql), 0);
	parents = st;
	reg_finalizep(&st);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t n = reg_stmt_cache_size(r);
		int bad = reg_prepare(r, &st, meta_sql) < 0 || !st || st == parents;
		reg_finalizep(&st);
		bad |= reg_stmt_cache_size(r) != n;
		_exit(bad ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(reg_prepare(r, &st, meta_sql), 0);
	assert_ptr_equal(st, parents);
	reg_finalizep(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(same_text_same_stmt, setup, teardown),
		cmocka_unit_test_setup_teardown(nested_use, setup, teardown),
		cmocka_unit_test_setup_teardown(no_binding_or_snapshot_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_change_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(prepare_error_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(transaction_statements, setup, teardown),
		cmocka_unit_test_setup_teardown(free_finalizes_all, setup, teardown),
		cmocka_unit_test_setup_teardown(fork_child_uncached, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
