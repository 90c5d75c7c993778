/*
 * registry/record/sample_tests.c: regression tests from recorded calls
 * (docs/REGISTRY.md, "Regression tests from real calls"). A person's
 * `toolgate tests add NAME --from-sample ID` turns recorded call #ID of NAME
 * (samples.c) into a test through reg_sample_as_test: its arguments, its
 * accepted outcome ("expect", or "expect_error" for a call that failed) and
 * its bridged calls' recorded results as fixtures. The test is a
 * sample_tests row (at most REG_MAX_SAMPLE_TESTS per tool); every later
 * create of NAME appends the stored tests its manifest does not already
 * hold by name (reg_sample_tests_merge, called by create/pipeline.c before
 * the manifest is checked), so the next version is checked, run and
 * committed with them, and a pull's re-tests run them too. `tests list`
 * and `tests remove` read and delete them; adding and removing are audited
 * ("test_added", "test_removed"). history lists them.
 */
#include "registry/record/record.h"

#include <string.h>

#define REG_MAX_SAMPLE_TESTS 16

int reg_sample_tests_list(json_t **out, tg_registry *r, const char *name)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *list = json_array();
	int rc;

	*out = NULL;
	if (!list)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, "SELECT name, test, sample, actor, at FROM sample_tests WHERE "
				 "tool = ?1 ORDER BY id");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *o = json_pack("{s:s, s:o, s:I, s:s, s:I}", "name",
				      (const char *)sqlite3_column_text(st, 0), "test",
				      reg_col_json(st, 1), "sample",
				      (json_int_t)sqlite3_column_int64(st, 2), "actor",
				      (const char *)sqlite3_column_text(st, 3), "at",
				      (json_int_t)sqlite3_column_int64(st, 4));
		if (!o || json_array_append_new(list, o) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list the tests from recorded calls");
	*out = TG_TAKE_PTR(list);
	return 0;
}

int reg_sample_tests_merge(tg_registry *r, json_t *manifest, size_t *added)
{
	_cleanup_json_ json_t *stored = NULL;
	const char *name = json_string_value(json_object_get(manifest, "name"));
	json_t *tests = json_object_get(manifest, "tests"), *s, *t;
	size_t i, k;
	int rc, have;

	*added = 0;
	if (!name || !json_is_array(tests))
		return 0; /* the manifest check says what is wrong */
	if ((rc = reg_sample_tests_list(&stored, r, name)) < 0)
		return rc;
	json_array_foreach(stored, i, s) {
		have = 0;
		json_array_foreach(tests, k, t)
			have |= json_equal(json_object_get(t, "name"), json_object_get(s, "name"));
		if (have)
			continue;
		if (json_array_append(tests, json_object_get(s, "test")) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		(*added)++;
	}
	return 0;
}

int tg_registry_tests_add(json_t **out, tg_registry *r, const char *name, int64_t sample,
			  const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *s = NULL, *t = NULL, *d = NULL;
	_cleanup_free_ char *text = NULL, *actor = reg_actor_string(who);
	const char *tname;
	int rc;

	*out = NULL;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_sample_get(&s, r, name, sample)) < 0 || (rc = reg_sample_as_test(&t, s)) < 0)
		return rc;
	tname = json_string_value(json_object_get(t, "name"));
	if (!(text = tg_json_dump(t)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "SELECT count(*), sum(name = ?2) FROM sample_tests WHERE "
				 "tool = ?1");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, name);
	reg_bind_text(st, 2, tname);
	if ((rc = reg_step(st)) != SQLITE_ROW) {
		rc = reg_sqlerr(r, rc, "count the tests from recorded calls");
		goto fail;
	}
	if (sqlite3_column_int64(st, 1) > 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s already has the test \"%s\"", name, tname);
		goto fail;
	}
	if (sqlite3_column_int64(st, 0) >= REG_MAX_SAMPLE_TESTS) {
		rc = tg_error_set(TG_ERR_LIMIT, "%s has %d tests from recorded calls, the most it "
						"may have (toolgate tests remove)", name,
				  REG_MAX_SAMPLE_TESTS);
		goto fail;
	}
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "INSERT INTO sample_tests(tool, name, test, sample, actor, at) "
				 "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, name);
	reg_bind_text(st, 2, tname);
	reg_bind_text(st, 3, text);
	sqlite3_bind_int64(st, 4, sample);
	reg_bind_text(st, 5, actor);
	sqlite3_bind_int64(st, 6, tg_time_now());
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "store a test from a recorded call");
		goto fail;
	}
	d = json_pack("{s:s, s:I}", "test", tname, "sample", (json_int_t)sample);
	if ((rc = reg_audit_commit(r, who, "test_added", name, d)) < 0)
		return rc;
	*out = json_pack("{s:s, s:O}", "name", name, "test", t);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}

int tg_registry_tests_list(json_t **out, tg_registry *r, const char *name)
{
	_cleanup_json_ json_t *list = NULL;
	int rc;

	*out = NULL;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	if ((rc = reg_sample_tests_list(&list, r, name)) < 0)
		return rc;
	*out = json_pack("{s:s, s:O}", "name", name, "tests", list);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int tg_registry_tests_remove(json_t **out, tg_registry *r, const char *name, const char *test,
			     const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *d = NULL;
	int rc;

	*out = NULL;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	if ((rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "DELETE FROM sample_tests WHERE tool = ?1 AND name = ?2");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, name);
	reg_bind_text(st, 2, test);
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "remove a test from a recorded call");
		goto fail;
	}
	if (sqlite3_changes(r->db) != 1) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no test \"%.80s\" from a recorded call",
				  name, test);
		goto fail;
	}
	d = json_pack("{s:s}", "test", test);
	if ((rc = reg_audit_commit(r, who, "test_removed", name, d)) < 0)
		return rc;
	*out = json_pack("{s:s, s:s}", "name", name, "removed", test);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}
