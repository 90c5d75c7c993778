/*
 * registry/record/samples.c: the recorded calls of each tool (docs/REGISTRY.md,
 * "A new version earns its place"). A real top-level call that ran its tool
 * leaves one row in call_samples (its arguments, its result or error, the
 * version and the wall time), inserted in its outcome's transaction
 * (calllog.c), then the tool's rows past config.json's record_calls (64) or
 * record_calls.tool_kb (2 MiB) are deleted, oldest first, and the home's
 * oldest past record_calls.home_mb (64 MiB; the total is kept by triggers
 * in call_samples_total, one row read). The samples live only in
 * registry.db: nothing here reaches the store, so push never carries them.
 * The replies of its direct bridged calls (exec/replay.c's tape) are a
 * sample_journals row, counted in the sample's bytes and deleted with it
 * (a trigger). `toolgate samples NAME` lists them, `toolgate samples purge [NAME]`
 * deletes them (audited "samples_purged"); create/shadow.c runs a new
 * version on them.
 */
#include "registry/record/record.h"

#include <string.h>

/* Keep the tool's newest rows within the count and byte caps. Both common
 * checks read the index (tool, id, bytes) only; the window over the rows
 * runs only when the tool is over its bytes. */
static int prune_tool(tg_registry *r, const char *name)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	sqlite3_int64 cap = (sqlite3_int64)r->cfg.record_tool_kb * 1024;
	int rc = reg_prepare(r, &st, "DELETE FROM call_samples WHERE tool = ?1 AND id <= (SELECT "
				     "id FROM call_samples WHERE tool = ?1 ORDER BY id DESC LIMIT 1 "
				     "OFFSET ?2)");

	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, r->cfg.record_calls);
	if ((rc = reg_step(st)) != SQLITE_DONE)
		return reg_sqlerr(r, rc, "prune samples");
	reg_finalizep(&st);
	st = NULL;
	if ((rc = reg_prepare(r, &st, "SELECT sum(bytes) FROM call_samples WHERE tool = ?1")) < 0)
		return rc;
	reg_bind_text(st, 1, name);
	if ((rc = reg_step(st)) != SQLITE_ROW)
		return reg_sqlerr(r, rc, "sample bytes");
	if (sqlite3_column_int64(st, 0) <= cap)
		return 0;
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "DELETE FROM call_samples WHERE tool = ?1 AND id NOT IN (SELECT id "
				 "FROM (SELECT id, sum(bytes) OVER (ORDER BY id DESC) AS s FROM "
				 "call_samples WHERE tool = ?1) WHERE s <= ?2)");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, cap);
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "prune samples");
}

/* Past the home's cap: delete the home's oldest rows until it fits. */
static int prune_home(tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	sqlite3_int64 cap = (sqlite3_int64)r->cfg.record_home_mb << 20, total;
	int rc = reg_prepare(r, &st, "SELECT bytes FROM call_samples_total WHERE id = 1");

	if (rc < 0)
		return rc;
	rc = reg_step(st);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc == SQLITE_DONE ? SQLITE_CORRUPT : rc, "sample total");
	total = sqlite3_column_int64(st, 0);
	reg_finalizep(&st);
	st = NULL;
	if (total <= cap)
		return 0;
	rc = reg_prepare(r, &st, "DELETE FROM call_samples WHERE id IN (SELECT id FROM (SELECT id, "
				 "bytes, sum(bytes) OVER (ORDER BY id) AS s FROM call_samples) "
				 "WHERE s - bytes < ?1)");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, total - cap);
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "prune the home's samples");
}

/* The sample's journal row (the replies of its bridged calls). */
static int journal_put(tg_registry *r, sqlite3_int64 id, const char *text)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "INSERT INTO sample_journals(sample_id, entries) "
				     "VALUES(?1, ?2)");

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	reg_bind_text(st, 2, text);
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "record a sample's bridged calls");
}

int reg_sample_put(tg_registry *r, const char *name, unsigned v, const json_t *args,
		   const json_t *journal, const json_t *res)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *a = tg_json_dump(args), *val = NULL, *jt = NULL;
	const json_t *result = json_object_get(res, "result");
	const char *err = json_string_value(json_object_get(res, "error"));
	const char *why = json_string_value(json_object_get(res, "reason"));
	int ok = json_is_true(json_object_get(res, "ok"));
	size_t bytes;
	int rc;

	if (!a || (ok && result && !(val = tg_json_dump(result))) ||
	    (json_array_size(journal) > 0 && !(jt = tg_json_dump(journal))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* the journal counts in the sample's bytes: the same caps bound it */
	bytes = strlen(a) + (val ? strlen(val) : 0) + (err ? strlen(err) : 0) +
		(jt ? strlen(jt) : 0);
	if (bytes > (size_t)r->cfg.record_tool_kb * 1024)
		return 0; /* one call larger than the tool's whole share: not kept */
	rc = reg_prepare(r, &st, "INSERT INTO call_samples(tool, version, args, ok, result, error, "
				 "reason, wall_ms, bytes, at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
				 "?9, ?10)");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, v);
	reg_bind_text(st, 3, a);
	sqlite3_bind_int(st, 4, ok);
	reg_bind_text(st, 5, val);
	reg_bind_text(st, 6, ok ? NULL : err);
	reg_bind_text(st, 7, why ? why : "");
	sqlite3_bind_int64(st, 8, json_integer_value(json_object_get(res, "wall_ms")));
	sqlite3_bind_int64(st, 9, (sqlite3_int64)bytes);
	sqlite3_bind_int64(st, 10, tg_time_now());
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "record a sample");
	if (jt && (rc = journal_put(r, sqlite3_last_insert_rowid(r->db), jt)) < 0)
		return rc;
	if ((rc = prune_tool(r, name)) < 0)
		return rc;
	return prune_home(r);
}

/* The columns sample_row reads, then a WHERE clause. */
#define SAMPLE_SELECT                                                                      \
	"SELECT s.id, s.version, s.args, s.ok, s.result, s.error, s.reason, s.wall_ms, s.at, " \
	"j.entries FROM call_samples s LEFT JOIN sample_journals j ON j.sample_id = s.id "

/* One row as {"id","version","args","ok","result"|"error","reason",
 * "wall_ms","at"} and "journal" when it made bridged calls. */
static json_t *sample_row(sqlite3_stmt *st)
{
	json_t *o = json_pack("{s:I, s:I, s:o, s:b, s:s, s:I, s:I}", "id",
			      (json_int_t)sqlite3_column_int64(st, 0), "version",
			      (json_int_t)sqlite3_column_int64(st, 1), "args", reg_col_json(st, 2),
			      "ok", sqlite3_column_int(st, 3),
			      "reason", (const char *)sqlite3_column_text(st, 6), "wall_ms",
			      (json_int_t)sqlite3_column_int64(st, 7), "at",
			      (json_int_t)sqlite3_column_int64(st, 8));

	if (!o)
		return NULL;
	if (sqlite3_column_int(st, 3)) {
		json_t *v = reg_col_json(st, 4);
		json_object_set_new(o, "result", v ? v : json_null());
	} else {
		const char *e = (const char *)sqlite3_column_text(st, 5);
		json_object_set_new(o, "error", json_string(e ? e : ""));
	}
	if (sqlite3_column_type(st, 9) != SQLITE_NULL) {
		json_t *j = reg_col_json(st, 9);
		if (json_is_array(j))
			json_object_set_new(o, "journal", j);
		else
			json_decref(j);
	}
	return o;
}

int reg_samples_list(json_t **out, tg_registry *r, const char *name, unsigned limit)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *list = json_array();
	int rc;

	*out = NULL;
	if (!list)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, SAMPLE_SELECT "WHERE s.tool = ?1 ORDER BY s.id DESC LIMIT ?2");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, limit ? (sqlite3_int64)limit : -1);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *o = sample_row(st);
		if (!o || json_array_insert_new(list, 0, o) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list samples");
	*out = TG_TAKE_PTR(list);
	return 0;
}

int reg_sample_get(json_t **out, tg_registry *r, const char *name, int64_t id)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	rc = reg_prepare(r, &st, SAMPLE_SELECT "WHERE s.id = ?1 AND s.tool = ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	reg_bind_text(st, 2, name);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "%s has no recorded call #%lld (toolgate "
						     "samples %s lists them)", name, (long long)id,
				    name);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read a sample");
	*out = sample_row(st);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* Put the journal entry's result as fixtures[key]; one value per callee. */
static int fixture_put(json_t *fixtures, const char *key, const json_t *e, json_int_t id)
{
	const json_t *res = json_object_get(json_object_get(e, "reply"), "result");
	const json_t *had = json_object_get(fixtures, key);
	const char *callee = json_string_value(json_object_get(e, "callee"));

	if (!res)
		return tg_error_set(TG_ERR_INVALID, "recorded call #%lld: its bridged call to %s "
						    "failed, and a test's fixture holds only a "
						    "result", (long long)id, callee);
	if (had && !json_equal((json_t *)had, (json_t *)res))
		return tg_error_set(TG_ERR_INVALID, "recorded call #%lld: two bridged calls to %s "
						    "got different replies, and a test holds one "
						    "fixture per callee", (long long)id, callee);
	return json_object_set(fixtures, key, (json_t *)res) < 0
		       ? tg_error_set(TG_ERR_NOMEM, "out of memory")
		       : 0;
}

int reg_sample_as_test(json_t **out, const json_t *sample)
{
	_cleanup_json_ json_t *t = NULL, *host = json_object(), *tools = json_object();
	json_int_t id = json_integer_value(json_object_get(sample, "id"));
	const json_t *e;
	char tname[40];
	size_t i;
	int rc;

	*out = NULL;
	snprintf(tname, sizeof(tname), "recorded call #%lld", (long long)id);
	t = json_pack("{s:s, s:O}", "name", tname, "args", json_object_get(sample, "args"));
	if (!t || !host || !tools)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (json_is_true(json_object_get(sample, "ok"))) {
		const json_t *v = json_object_get(sample, "result");
		rc = json_object_set(t, "expect", v ? (json_t *)v : json_null());
	} else {
		rc = json_object_set_new(t, "expect_error", json_true());
	}
	if (rc < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_array_foreach(json_object_get(sample, "journal"), i, e) {
		const char *c = json_string_value(json_object_get(e, "callee"));
		if (!c)
			continue;
		rc = strncmp(c, "host:", 5) == 0 ? fixture_put(host, c + 5, e, id)
						 : fixture_put(tools, c, e, id);
		if (rc < 0)
			return rc;
	}
	if ((json_object_size(host) && json_object_set(t, "host_results", host) < 0) ||
	    (json_object_size(tools) && json_object_set(t, "tool_results", tools) < 0))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*out = TG_TAKE_PTR(t);
	return 0;
}

int tg_registry_samples(json_t **out, tg_registry *r, const char *name)
{
	_cleanup_json_ json_t *list = NULL;
	int rc;

	*out = NULL;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	if ((rc = reg_samples_list(&list, r, name, 0)) < 0)
		return rc;
	*out = json_pack("{s:s, s:O, s:i, s:i, s:b}", "name", name, "samples", list, "max_calls",
			 (int)r->cfg.record_calls, "max_tool_kb", (int)r->cfg.record_tool_kb,
			 "recording", r->cfg.record_calls > 0);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int tg_registry_samples_purge(json_t **out, tg_registry *r, const char *name,
			      const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *d = NULL;
	int64_t n;
	int rc;

	*out = NULL;
	if (name && !tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	if ((rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, name ? "DELETE FROM call_samples WHERE tool = ?1"
				      : "DELETE FROM call_samples");
	if (rc < 0)
		goto fail;
	if (name)
		reg_bind_text(st, 1, name);
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "purge samples");
		goto fail;
	}
	n = sqlite3_changes(r->db);
	d = json_pack("{s:I, s:b}", "deleted", (json_int_t)n, "all_tools", name == NULL);
	if ((rc = reg_audit_commit(r, who, "samples_purged", name, d)) < 0)
		return rc;
	*out = TG_TAKE_PTR(d);
	return 0;
fail:
	reg_rollback(r);
	return rc;
}

int reg_shadow_report(json_t **out, tg_registry *r, const char *name, unsigned v)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT report FROM shadow_reports WHERE tool = ?1 AND "
				     "version = ?2");

	*out = NULL;
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		*out = reg_col_json(st, 0);
	else if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read the shadow report");
	return 0;
}
