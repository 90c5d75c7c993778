/*
 * tests/registry/test_registry_fp.c: the open's fast path. An open whose
 * store fingerprint equals the one the last re-index recorded does not open
 * the store (no libgit2), also through a call-like sequence (list, generation,
 * a call refused by the schema and logged); every change to the store made
 * elsewhere (tg_store_put / set_active / clear_active directly, `git
 * pack-refs`, a second registry handle's rollback) is seen by the next open;
 * a version deleted from SQLite while the fingerprint matches is still
 * reported and repaired by verify (the full comparison); a deleted
 * registry.db is rebuilt; call-only handles leave the WAL unchecked but
 * bounded. Versions are put into the store directly, as the
 * pipeline commits them (no sandbox needed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "registry/registry.h"
#include "store/store.h"
#include "test_support.h"

/* Put one passing version into the store as the pipeline commits it. */
static unsigned put_version(tg_store *s, const char *tool, const char *src)
{
	char manifest[600];

	snprintf(manifest, sizeof(manifest),
		 "{\"name\":\"%s\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\","
		 "\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]},"
		 "\"source\":\"tool.c\",\"tests\":[{\"name\":\"t\",\"args\":{\"n\":1},\"expect\":1}]}",
		 tool);
	return tgt_store_put_version(s, tool, "active", src, manifest);
}

/* Open home; assert whether the open had to open the store. */
static tg_registry *open_expect(const char *home, int store_opened)
{
	tg_registry *r = NULL;

	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	if (tg_registry_store_opened(r) != store_opened)
		fail_msg("open of %s: store opened = %d, expected %d", home,
			 tg_registry_store_opened(r), store_opened);
	return r;
}

/* Files written less than 2 s ago are content-hashed by the fingerprint;
 * waiting the window out makes the next recorded value the lasting one. */
static void settle(const char *home)
{
	tg_registry *r = NULL;

	usleep(2200 * 1000);
	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	tg_registry_free(r);
}

static unsigned active_of(tg_registry *r, const char *tool)
{
	json_t *j = NULL;
	unsigned v;

	if (tg_registry_show(&j, r, tool, 0) < 0)
		return 0;
	v = (unsigned)json_integer_value(json_object_get(j, "version"));
	json_decref(j);
	return v;
}

/* Is tool among the active tools? */
static int listed(tg_registry *r, const char *tool)
{
	json_t *j = NULL, *t;
	size_t i;
	int found = 0;

	assert_int_equal(tg_registry_list(&j, r), 0);
	json_array_foreach(j, i, t)
		found |= strcmp(json_string_value(json_object_get(t, "name")), tool) == 0;
	json_decref(j);
	return found;
}

static void test_fast_open_and_call_sequence(void **state)
{
	char *home = tgt_home_make("tg_registry_fp");
	tg_registry *r = NULL;
	tg_store *s;
	tg_actor who = { "cli", NULL };
	json_t *j = NULL, *args;
	uint64_t g;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	assert_int_equal(tg_registry_store_opened(r), 1); /* new home: the store is made */
	tg_registry_free(r);
	s = tgt_store_open(home);
	put_version(s, "adder", "int a1;\n");
	assert_int_equal(tg_store_set_active(s, "adder", 1, 0, "t"), 0);
	tg_store_free(s);
	settle(home);

	/* what `toolgate call` does: open, look up, check the arguments, log */
	r = open_expect(home, 0);
	assert_int_equal(tg_registry_list(&j, r), 0);
	assert_int_equal(json_array_size(j), 1);
	json_decref(j);
	assert_int_equal(tg_registry_toolset_generation(&g, r), 0);
	args = json_pack("{s:s}", "n", "not a number");
	assert_int_equal(tg_registry_call(&j, r, "adder", args, &who), 0);
	json_decref(args);
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "invalid_args");
	json_decref(j);
	assert_int_equal(tg_registry_store_opened(r), 0);
	/* what needs the store opens it on demand */
	assert_int_equal(tg_registry_show(&j, r, "adder", 1), 0);
	assert_string_equal(json_string_value(json_object_get(j, "source")), "int a1;\n");
	json_decref(j);
	assert_int_equal(tg_registry_store_opened(r), 1);
	tg_registry_free(r);
	/* reads changed nothing: still fast; the call was logged */
	r = open_expect(home, 0);
	assert_int_equal(tg_registry_log(&j, r, 0), 0);
	json_decref(j);
	tg_registry_free(r);
	assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls WHERE tool = 'adder' AND ok = 0"), 1);
	tgt_home_remove(home);
}

static void test_changes_elsewhere_are_seen(void **state)
{
	char *home = tgt_home_make("tg_registry_fp");
	_cleanup_free_ char *db = tg_path_join(home, "registry.db");
	tg_registry *r = NULL, *r2 = NULL;
	tg_store *s;
	tg_actor who = { "cli", NULL };
	json_t *j = NULL;
	char cmd[700];

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	tg_registry_free(r);
	s = tgt_store_open(home);
	put_version(s, "adder", "int a1;\n");
	put_version(s, "adder", "int a2;\n");
	assert_int_equal(tg_store_set_active(s, "adder", 1, 0, "t"), 0);
	settle(home);
	r = open_expect(home, 0);
	assert_int_equal(active_of(r, "adder"), 1);
	tg_registry_free(r);

	/* the active ref moved by another process */
	assert_int_equal(tg_store_set_active(s, "adder", 2, 1, "t"), 0);
	r = open_expect(home, 1);
	assert_int_equal(active_of(r, "adder"), 2);
	tg_registry_free(r);
	/* a new version and a new tool put directly */
	assert_int_equal(put_version(s, "adder", "int a3;\n"), 3);
	put_version(s, "other", "int o1;\n");
	assert_int_equal(tg_store_set_active(s, "other", 1, 0, "t"), 0);
	r = open_expect(home, 1);
	assert_int_equal(tg_registry_show(&j, r, "adder", 3), 0);
	json_decref(j);
	assert_int_equal(active_of(r, "other"), 1);
	tg_registry_free(r);
	/* the active ref removed */
	assert_int_equal(tg_store_clear_active(s, "other", 1, "t"), 0);
	r = open_expect(home, 1);
	assert_false(listed(r, "other"));
	assert_true(listed(r, "adder"));
	tg_registry_free(r);
	/* packing the refs (same contents) is a change too: re-indexed, nothing lost */
	settle(home);
	snprintf(cmd, sizeof(cmd), "git --git-dir='%s/store.git' pack-refs --all", home);
	assert_int_equal(system(cmd), 0);
	r = open_expect(home, 1);
	assert_int_equal(active_of(r, "adder"), 2);
	tg_registry_free(r);

	/* a second registry handle's rollback: seen by the next open (its own
	 * write left the recorded fingerprint stale) */
	settle(home);
	r = open_expect(home, 0);
	assert_int_equal(tg_registry_open(&r2, home, 0), 0);
	assert_int_equal(tg_registry_rollback(&j, r2, "adder", 1, 0, &who), 0);
	json_decref(j);
	tg_registry_free(r2);
	assert_int_equal(active_of(r, "adder"), 1); /* SQLite is shared */
	tg_registry_free(r);
	r = open_expect(home, 1);
	assert_int_equal(active_of(r, "adder"), 1);
	tg_registry_free(r);
	settle(home);
	r = open_expect(home, 0);
	assert_int_equal(tg_registry_verify(&j, r), 0);
	assert_true(json_is_true(json_object_get(j, "ok")));
	json_decref(j);
	tg_registry_free(r);

	/* SQLite loses a version while the store is unchanged: the open takes
	 * the fast path, verify still compares everything and repairs it */
	tgt_sql(home, "DELETE FROM test_results; DELETE FROM findings; "
		      "DELETE FROM versions WHERE version = 3 AND tool_id = "
		      "(SELECT id FROM tools WHERE name = 'adder')");
	r = open_expect(home, 0);
	assert_int_equal(tg_registry_verify(&j, r), 0);
	{
		char *notes = tg_json_dump(json_object_get(j, "notes"));
		assert_non_null(strstr(notes, "re-indexed adder v3"));
		free(notes);
	}
	json_decref(j);
	assert_int_equal(tg_registry_show(&j, r, "adder", 3), 0);
	json_decref(j);
	tg_registry_free(r);

	/* registry.db deleted: a fresh database never trusts a fingerprint */
	assert_int_equal(unlink(db), 0);
	r = open_expect(home, 1);
	assert_int_equal(active_of(r, "adder"), 1);
	assert_int_equal(tg_registry_show(&j, r, "adder", 3), 0);
	json_decref(j);
	tg_registry_free(r);
	tg_store_free(s);
	tgt_home_remove(home);
}

/* A handle that committed nothing leaves the WAL unchecked (no fsync per
 * call); a registry.db deleted without its -wal is still rebuilt cleanly,
 * the stale WAL not replayed into the new database. */
static void test_wal_left_and_stale_wal(void **state)
{
	char *home = tgt_home_make("tg_registry_fp");
	_cleanup_free_ char *db = tg_path_join(home, "registry.db");
	_cleanup_free_ char *wal = tg_path_join(home, "registry.db-wal");
	tg_registry *r = NULL;
	tg_store *s;
	tg_actor who = { "cli", NULL };
	json_t *j = NULL, *args;
	struct stat st;
	int i;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	tg_registry_free(r);
	s = tgt_store_open(home);
	put_version(s, "adder", "int a1;\n");
	assert_int_equal(tg_store_set_active(s, "adder", 1, 0, "t"), 0);
	tg_store_free(s);
	assert_int_equal(tg_registry_open(&r, home, 0), 0); /* re-index: commits */
	tg_registry_free(r);
	assert_int_equal(stat(wal, &st), -1); /* a committing handle checkpoints */
	args = json_pack("{s:s}", "n", "x");
	for (i = 0; i < 3; i++) {
		assert_int_equal(tg_registry_open(&r, home, 0), 0);
		assert_int_equal(tg_registry_call(&j, r, "adder", args, &who), 0);
		json_decref(j);
		tg_registry_free(r);
	}
	json_decref(args);
	assert_int_equal(stat(wal, &st), 0);
	assert_true(st.st_size > 0);
	assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls"), 3);

	/* the documented way is to delete all three; delete only registry.db */
	assert_int_equal(unlink(db), 0);
	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	assert_int_equal(active_of(r, "adder"), 1);
	assert_int_equal(tg_registry_verify(&j, r), 0);
	/* the only problem: the rebuild lost the history (until acknowledged) */
	assert_int_equal(json_array_size(json_object_get(j, "problems")), 1);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(j, "problems"), 0)),
			       "rebuilt from the store"));
	json_decref(j);
	tg_registry_free(r);
	assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls"), 0);
	assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
	tgt_home_remove(home);
}

/* The WAL a call-only handle leaves is bounded: every process rebuilds its
 * index by reading all of it, and without a checkpoint at close it would
 * grow by a page per call forever (256 KiB = REG_WAL_KEEP_BYTES). */
static void test_wal_bounded(void **state)
{
	char *home = tgt_home_make("tg_registry_fp");
	_cleanup_free_ char *wal = tg_path_join(home, "registry.db-wal");
	tg_registry *r = NULL;
	tg_store *s;
	tg_actor who = { "cli", NULL };
	json_t *j = NULL, *args;
	struct stat st;
	off_t max = 0;
	int i;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	tg_registry_free(r);
	s = tgt_store_open(home);
	put_version(s, "adder", "int a1;\n");
	assert_int_equal(tg_store_set_active(s, "adder", 1, 0, "t"), 0);
	tg_store_free(s);
	args = json_pack("{s:s}", "n", "x");
	for (i = 0; i < 200; i++) {
		assert_int_equal(tg_registry_open(&r, home, 0), 0);
		assert_int_equal(tg_registry_call(&j, r, "adder", args, &who), 0);
		json_decref(j);
		tg_registry_free(r);
		if (stat(wal, &st) == 0 && st.st_size > max)
			max = st.st_size;
	}
	json_decref(args);
	assert_true(max > 0);                   /* calls did leave it */
	assert_true(max <= 256 * 1024 + 5 * 4120); /* and it was checkpointed */
	assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls"), 200);
	tgt_home_remove(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_open_and_call_sequence),
		cmocka_unit_test(test_changes_elsewhere_are_seen),
		cmocka_unit_test(test_wal_left_and_stale_wal),
		cmocka_unit_test(test_wal_bounded),
	};
	tg_store_set_fsync(0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
