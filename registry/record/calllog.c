/*
 * registry/record/calllog.c: the call log and the audit trail of calls, written so
 * that they fail closed. A call that will run its tool first records its
 * intent in one transaction: a `calls` row with finished = 0 and a "call"
 * audit entry naming that row. Only when that commit is done does the tool
 * run; then one transaction completes the row (finished = 1, ok, error,
 * wall_ms) and appends a "call_result" entry. If the intent cannot be
 * written the tool never runs (the caller gets the error); if the outcome
 * cannot be written the caller gets that error, never the tool's result; if
 * the process dies in between, the row stays unfinished and `log` and
 * `verify` show it.
 *
 * Deferred intents. A run that can act outside its result (a workspace it
 * may write, calls through the bridge, a callee of such a run) starts only
 * once its intent is durable (reg_commit_call: the durability barrier of
 * commit.c, then the audit anchor). Any other run has no effect but its
 * result (no network, no file outside its own tmpfs), so its intent is
 * committed to the WAL without the barrier and its outcome's commit is
 * durable: one fdatasync makes both durable (the WAL is appended in order)
 * before the result is handed out. A killed process keeps the WAL's pages
 * (the row stays unfinished as before); only a power loss during the run
 * can lose the intent of a run whose result nobody received.
 *
 * A call that never reaches its tool (invalid arguments, no approval, no
 * workspace) is one transaction: a finished row and a "call_result" entry.
 * The outcome commit of a call whose intent was durable does not fsync (a
 * power loss can only turn a finished call back into an unfinished one; the
 * anchor advances at the next durable append, docs/REGISTRY.md, "Audit
 * anchor") unless the caller names an
 * entry of its own for the call (`after`, MCP's "mcp_call"): that entry is
 * appended in the same transaction, which is then durable before the result
 * is handed out: one transaction and one (group) fsync where a separate
 * audit write used to cost a second transaction.
 */
#include "registry/record/record.h"

#include <string.h>

static int insert_row(tg_registry *r, int64_t *out, const char *name, unsigned v,
		      const json_t *res, int finished, const char *actor)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	const char *err = res ? json_string_value(json_object_get(res, "error")) : NULL;
	int rc;

	rc = reg_prepare(r, &st, "INSERT INTO calls(tool, version, ok, error, wall_ms, actor, at, "
				 "finished) VALUES(?1, ?2, ?3, substr(?4, 1, 1024), ?5, ?6, ?7, ?8)");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, v);
	sqlite3_bind_int(st, 3, res ? json_is_true(json_object_get(res, "ok")) : 0);
	reg_bind_text(st, 4, err);
	sqlite3_bind_int64(st, 5, res ? json_integer_value(json_object_get(res, "wall_ms")) : 0);
	reg_bind_text(st, 6, actor);
	sqlite3_bind_int64(st, 7, tg_time_now());
	sqlite3_bind_int(st, 8, finished);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "log call");
	*out = sqlite3_last_insert_rowid(r->db);
	return 0;
}

static json_t *result_details(int64_t id, unsigned v, const json_t *res)
{
	json_t *d = json_pack("{s:I, s:i, s:b, s:I}", "call", (json_int_t)id, "version", (int)v,
			      "ok", json_is_true(json_object_get(res, "ok")), "wall_ms",
			      json_integer_value(json_object_get(res, "wall_ms")));
	const char *why = json_string_value(json_object_get(res, "reason"));
	const char *backend = json_string_value(json_object_get(res, "backend"));

	if (d && why)
		json_object_set_new(d, "reason", json_string(why));
	/* the sandbox backend the tool ran under (exec/run_tool.c); absent
	 * when it did not run (invalid arguments, not approved) */
	if (d && backend)
		json_object_set_new(d, "backend", json_string(backend));
	return d;
}

/* Commit (rc 0) or roll back (rc < 0); durable when the call carries an
 * entry of the caller's or its intent was deferred (docs at the top). The
 * error of rc < 0 stays. */
static int outcome_end(tg_registry *r, int rc, int durable)
{
	if (rc < 0) {
		reg_rollback(r);
		return rc;
	}
	return durable ? reg_commit_call(r) : reg_commit_nosync(r);
}

/* The caller's own entry for the call ({"version","ok"}), if it named one. */
static int append_after(tg_registry *r, const tg_actor *who, const char *after, const char *name,
			unsigned v, const json_t *res)
{
	_cleanup_json_ json_t *d = NULL;

	if (!after)
		return 0;
	d = json_pack("{s:i, s:b}", "version", (int)v, "ok", json_is_true(json_object_get(res, "ok")));
	if (!d)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return reg_audit_append(r, who, after, name, d);
}

int reg_call_intent(tg_registry *r, int64_t *out_id, int deferred, const char *name,
		    unsigned v, const tg_actor *who)
{
	_cleanup_free_ char *actor = reg_actor_string(who);
	_cleanup_json_ json_t *d = NULL;
	int rc;

	*out_id = 0;
	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) < 0)
		goto fail_msg;
	if ((rc = insert_row(r, out_id, name, v, NULL, 0, actor)) < 0)
		goto fail;
	d = json_pack("{s:I, s:i}", "call", (json_int_t)*out_id, "version", (int)v);
	if (!d) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((rc = reg_audit_append(r, who, "call", name, d)) < 0)
		goto fail;
	r->in_call_intent = 1;
	rc = reg_commit_intent(r, deferred);
	r->in_call_intent = 0;
	if (rc < 0)
		goto fail_msg;
	return 0;
fail:
	reg_rollback(r);
fail_msg:
	*out_id = 0;
	return tg_error_prefix("%s was not run: its call could not be recorded", name);
}

int reg_call_outcome(tg_registry *r, int64_t id, const char *name, unsigned v,
		     const json_t *res, const tg_actor *who, const char *after, int durable)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *d = result_details(id, v, res);
	const char *err = json_string_value(json_object_get(res, "error"));
	int rc;

	if (!d)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) < 0)
		goto out;
	rc = reg_prepare(r, &st, "UPDATE calls SET finished = 1, ok = ?2, error = substr(?3, 1, "
				 "1024), wall_ms = ?4 WHERE id = ?1 AND finished = 0");
	if (rc < 0)
		goto end;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, json_is_true(json_object_get(res, "ok")));
	reg_bind_text(st, 3, err);
	sqlite3_bind_int64(st, 4, json_integer_value(json_object_get(res, "wall_ms")));
	rc = reg_step(st);
	reg_finalizep(&st);
	st = NULL;
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "log call outcome");
		goto end;
	}
	if (sqlite3_changes(r->db) != 1) {
		rc = tg_error_set(TG_ERR_INTERNAL, "call %lld is not an unfinished call",
				  (long long)id);
		goto end;
	}
	if ((rc = reg_audit_append(r, who, "call_result", name, d)) == 0)
		rc = append_after(r, who, after, name, v, res);
	/* a real top-level call's sample (samples.c), in the same transaction */
	if (rc == 0 && r->sample_args)
		rc = reg_sample_put(r, name, v, r->sample_args, r->sample_journal, res);
end:
	rc = outcome_end(r, rc, after || durable);
out:
	if (rc < 0)
		return tg_error_prefix("%s ran but its outcome could not be recorded", name);
	return 0;
}

int reg_call_record(tg_registry *r, const char *name, unsigned v, const json_t *res,
		    const tg_actor *who, const char *after)
{
	_cleanup_free_ char *actor = reg_actor_string(who);
	_cleanup_json_ json_t *d = NULL;
	int64_t id = 0;
	int rc;

	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = insert_row(r, &id, name, v, res, 1, actor)) < 0)
		goto end;
	d = result_details(id, v, res);
	if (!d) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto end;
	}
	if ((rc = reg_audit_append(r, who, "call_result", name, d)) == 0)
		rc = append_after(r, who, after, name, v, res);
end:
	return outcome_end(r, rc, after != NULL);
}

int reg_calls_unfinished(tg_registry *r, json_t *notes)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT id, tool, version, actor, at FROM calls WHERE "
				     "finished = 0 ORDER BY id");

	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		char buf[512];
		snprintf(buf, sizeof(buf), "call %lld (%s v%lld by %s at %lld) is unfinished: it "
					   "was recorded before its tool ran and no outcome "
					   "followed (still running, or its process died)",
			 (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1),
			 (long long)sqlite3_column_int64(st, 2), sqlite3_column_text(st, 3),
			 (long long)sqlite3_column_int64(st, 4));
		if (json_array_append_new(notes, json_string(buf)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list unfinished calls");
	return 0;
}
