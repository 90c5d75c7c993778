/*
 * registry/exec/call_approval.c: per-call approval by a person (docs/BRIDGE.md).
 * A bridged call that needs a person is a row of call_approvals, "pending",
 * bound to sha256("toolgate-call-v1", callee version, canonical args): the
 * run's serving thread polls the row every 50 ms until a person approves
 * or denies it (`toolgate approve-call ID` / `deny-call ID`, another
 * process) or the wait ends (config call_approval_timeout_ms, or the run's
 * own deadline): then the row becomes "timeout" and the call is denied.
 * Each row is one call: approving it approves nothing else, not even a
 * later call with the same arguments. Queued, approved, denied and timed
 * out are audit entries. Also the tables this module and run.c add, made
 * when first needed (CREATE IF NOT EXISTS) so that they stay out of the
 * migrations other modules number.
 */

#include <string.h>
#include <time.h>
#include "registry/exec/exec.h"

#define POLL_MS 50

int reg_bridge_tables(tg_registry *r)
{
	return reg_exec(r, "CREATE TABLE IF NOT EXISTS call_approvals("
			   " id INTEGER PRIMARY KEY,"
			   " binding TEXT NOT NULL,"
			   " tool TEXT NOT NULL,"
			   " callee_version TEXT NOT NULL,"
			   " args TEXT NOT NULL,"
			   " caller TEXT NOT NULL,"
			   " run INTEGER NOT NULL DEFAULT 0,"
			   " status TEXT NOT NULL CHECK(status IN "
			   "  ('pending','approved','denied','timeout')),"
			   " queued_at INTEGER NOT NULL,"
			   " decided_at INTEGER NOT NULL DEFAULT 0,"
			   " decided_by TEXT NOT NULL DEFAULT '') STRICT;"
			   "CREATE TABLE IF NOT EXISTS programs("
			   " sha256 TEXT PRIMARY KEY,"
			   " source TEXT NOT NULL) STRICT;"
			   "CREATE TABLE IF NOT EXISTS runs("
			   " id INTEGER PRIMARY KEY,"
			   " program_sha256 TEXT NOT NULL REFERENCES programs(sha256),"
			   " report TEXT NOT NULL,"
			   " report_sha256 TEXT NOT NULL,"
			   " args TEXT NOT NULL,"
			   " calls TEXT NOT NULL,"
			   " limits TEXT NOT NULL,"
			   " status TEXT NOT NULL,"
			   " result TEXT NOT NULL DEFAULT 'null',"
			   " tool_calls INTEGER NOT NULL DEFAULT 0,"
			   " wall_ms INTEGER NOT NULL DEFAULT 0,"
			   " actor TEXT NOT NULL,"
			   " at INTEGER NOT NULL) STRICT;");
}

static int audit_in_txn(tg_registry *r, const tg_actor *who, const char *event, const char *tool,
			const json_t *d)
{
	int rc = reg_audit_append(r, who, event, tool, d);
	if (rc < 0) {
		reg_rollback(r);
		return rc;
	}
	return reg_commit(r);
}

static int queue(tg_registry *r, const reg_bridge *b, const char *tool, const char *ver,
		 const json_t *args, const char *binding, int64_t *id)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *text = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
	_cleanup_json_ json_t *d = NULL;
	int rc;

	if (!text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_bridge_tables(r)) < 0 || (rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "INSERT INTO call_approvals(binding, tool, callee_version, args, "
				 "caller, run, status, queued_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, "
				 "'pending', ?7)");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, binding);
	reg_bind_text(st, 2, tool);
	reg_bind_text(st, 3, ver);
	reg_bind_text(st, 4, text);
	reg_bind_text(st, 5, b->caller);
	sqlite3_bind_int64(st, 6, b->run_id);
	sqlite3_bind_int64(st, 7, tg_time_now());
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "queue a call");
		goto fail;
	}
	*id = sqlite3_last_insert_rowid(r->db);
	d = json_pack("{s:I, s:s, s:s, s:s, s:s}", "approval", (json_int_t)*id, "callee", tool,
		      "callee_version", ver, "binding", binding, "caller", b->caller);
	if (!d) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (b->run_id)
		json_object_set_new(d, "run", json_integer(b->run_id));
	return audit_in_txn(r, b->who, "call_queued", b->name[0] ? b->name : NULL, d);
fail:
	reg_rollback(r);
	return rc;
}

/* status of row id and its binding; rc < 0 on error */
static int read_row(tg_registry *r, int64_t id, char *status, size_t slen, char *binding)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT status, binding FROM call_approvals WHERE id = ?1");

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	rc = reg_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? tg_error_set(TG_ERR_INTERNAL, "call approval %lld vanished",
							(long long)id)
					 : reg_sqlerr(r, rc, "read a call approval");
	snprintf(status, slen, "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(binding, 65, "%s", (const char *)sqlite3_column_text(st, 1));
	return 0;
}

/* pending -> to (approved, denied, timeout) with its audit entry; 1 when this
 * call changed it, 0 when it was no longer pending. */
static int decide(tg_registry *r, int64_t id, const char *to, const tg_actor *who,
		  const char *via, json_t **row_out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL, *sel = NULL;
	_cleanup_json_ json_t *d = NULL;
	_cleanup_free_ char *actor = reg_actor_string(who);
	char event[32];
	int rc;

	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_bridge_tables(r)) < 0 || (rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &sel, "SELECT tool, callee_version, args, caller, run, binding, "
				  "status FROM call_approvals WHERE id = ?1");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(sel, 1, id);
	rc = reg_step(sel);
	if (rc != SQLITE_ROW) {
		rc = rc == SQLITE_DONE ? tg_error_set(TG_ERR_NOTFOUND, "no queued call %lld",
						      (long long)id)
				       : reg_sqlerr(r, rc, "read a call approval");
		goto fail;
	}
	if (strcmp((const char *)sqlite3_column_text(sel, 6), "pending") != 0) {
		rc = tg_error_set(TG_ERR_CONFLICT, "call %lld is no longer pending (%s)",
				  (long long)id, (const char *)sqlite3_column_text(sel, 6));
		goto fail;
	}
	d = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s}", "approval", (json_int_t)id, "callee",
		      (const char *)sqlite3_column_text(sel, 0), "callee_version",
		      (const char *)sqlite3_column_text(sel, 1), "caller",
		      (const char *)sqlite3_column_text(sel, 3), "binding",
		      (const char *)sqlite3_column_text(sel, 5), "decision", to);
	if (!d) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (sqlite3_column_int64(sel, 4))
		json_object_set_new(d, "run", json_integer(sqlite3_column_int64(sel, 4)));
	if (via)
		json_object_set_new(d, "via", json_string(via));
	rc = reg_prepare(r, &st, "UPDATE call_approvals SET status = ?2, decided_at = ?3, "
				 "decided_by = ?4 WHERE id = ?1 AND status = 'pending'");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	reg_bind_text(st, 2, to);
	sqlite3_bind_int64(st, 3, tg_time_now());
	reg_bind_text(st, 4, actor);
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "decide a call");
		goto fail;
	}
	snprintf(event, sizeof(event), "call_%s", to);
	if (row_out)
		*row_out = json_incref(d);
	rc = audit_in_txn(r, who, event, NULL, d);
	return rc < 0 ? rc : 1;
fail:
	reg_rollback(r);
	return rc;
}

void tg_registry_set_call_hooks(tg_registry *r, const tg_call_hooks *h)
{
	reg_replay_end(r); /* the old hooks get their run's journal */
	r->hooks = h;
	reg_replay_begin(r, h);
}

void tg_registry_set_cancel(tg_registry *r, const tg_cancel *c)
{
	r->cancel = c;
}

/* MCP elicitation: ask the session's client about the queued row id. Its
 * answer decides the row through decide(), the path of approve-call and
 * deny-call, with the session as the deciding actor and "via":
 * "elicitation"; the caller then reads the row and checks its binding as
 * for any decision. A row decided meanwhile by someone else (approve-call
 * in a terminal) stays as it was. TG_ERR_UNAVAILABLE: the client cannot be
 * asked, wait on the queue. */
static int ask_client(reg_bridge *b, const char *tool, const char *ver, const json_t *args,
		      const char *binding, int64_t id, uint64_t until)
{
	const tg_call_hooks *h = b->r->hooks;
	tg_call_question q = { 0 };
	const char *why = "declined", *to, *via;
	char digest[65];
	uint64_t now = tg_now_ms();
	int rc;

	if ((rc = tg_json_digest(digest, NULL, NULL, args)) < 0)
		return rc;
	q.id = id;
	q.callee = tool;
	q.callee_version = ver;
	q.binding = binding;
	q.args_sha256 = digest;
	q.caller = b->caller;
	q.args = args;
	q.run = b->run_id;
	q.timeout_ms = until > now ? until - now : 0;
	rc = h->ask(h->ctx, &q, &why);
	if (rc < 0)
		return rc;
	reg_replay_asked(b->r, why);
	to = rc == 1 ? "approved" : strcmp(why, "timeout") == 0 ? "timeout" : "denied";
	/* via: the answer's path. 2026-07-28 (docs/MCP.md): "input_required"
	 * (the client was sent the question, this run's call is denied),
	 * "request_state" / "request_state_declined" (a retry's answer) */
	if (rc == 1)
		via = strcmp(why, "request_state") == 0 ? "request_state" : "elicitation";
	else if (strcmp(why, "input_required") == 0 ||
		 strcmp(why, "request_state_declined") == 0)
		via = why;
	else
		via = strcmp(why, "cancelled") == 0 ? "elicitation_cancelled"
		      : strcmp(why, "timeout") == 0 ? "elicitation_timeout"
						    : "elicitation_declined";
	rc = decide(b->r, id, to, b->who, via, NULL);
	if (rc == TG_ERR_CONFLICT) {
		tg_error_clear();
		return 0; /* decided meanwhile: the row says how */
	}
	return rc < 0 ? rc : 0;
}

int reg_call_approval_wait(reg_bridge *b, const char *tool, const char *callee_version,
			   const json_t *args, int64_t *id, const char **why)
{
	char binding[65], status[16], got[65];
	uint64_t until = tg_now_ms() + b->r->cfg.call_approval_timeout_ms;
	int rc;

	*id = 0;
	*why = "denied";
	if (b->deadline_ms && b->deadline_ms < until)
		until = b->deadline_ms;
	(void)tg_json_digest(binding, "toolgate-call-v1", callee_version, args);
	rc = queue(b->r, b, tool, callee_version, args, binding, id);
	if (rc < 0)
		return rc;
	/* a journal past its caps cannot carry a retry (replay.c): the queue */
	if (b->r->hooks && b->r->hooks->ask && reg_replay_may_ask(b->r)) {
		rc = ask_client(b, tool, callee_version, args, binding, *id, until);
		if (rc < 0 && rc != TG_ERR_UNAVAILABLE)
			return rc;
		tg_error_clear();
	}
	for (;;) {
		struct timespec ts = { 0, POLL_MS * 1000000L };
		rc = read_row(b->r, *id, status, sizeof(status), got);
		if (rc < 0)
			return rc;
		if (strcmp(status, "approved") == 0)
			/* the row is this call: its binding must be this call's */
			return strcmp(got, binding) == 0;
		if (strcmp(status, "denied") == 0 || strcmp(status, "timeout") == 0) {
			*why = status[0] == 't' ? "timeout" : "denied";
			return 0;
		}
		if (tg_now_ms() >= until) {
			tg_actor sys = { "system", NULL };
			rc = decide(b->r, *id, "timeout", &sys, NULL, NULL);
			if (rc == TG_ERR_CONFLICT) {
				tg_error_clear();
				continue; /* decided just now: read it */
			}
			if (rc < 0)
				return rc;
			*why = "timeout";
			return 0;
		}
		nanosleep(&ts, NULL);
	}
}

int tg_registry_call_approvals(json_t **out, tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *arr = json_array();
	int rc;

	*out = NULL;
	if (!arr)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_table_exists(r, "call_approvals")) <= 0) {
		if (rc == 0)
			*out = TG_TAKE_PTR(arr); /* no call was ever queued */
		return rc;
	}
	rc = reg_prepare(r, &st, "SELECT id, tool, callee_version, args, caller, binding, run, "
				 "queued_at FROM call_approvals WHERE status = 'pending' ORDER BY id");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *e = json_pack("{s:I, s:s, s:s, s:o, s:s, s:s, s:I, s:I}", "id",
				      (json_int_t)sqlite3_column_int64(st, 0), "tool",
				      (const char *)sqlite3_column_text(st, 1), "callee_version",
				      (const char *)sqlite3_column_text(st, 2), "args",
				      reg_col_json(st, 3), "caller",
				      (const char *)sqlite3_column_text(st, 4), "binding",
				      (const char *)sqlite3_column_text(st, 5), "run",
				      (json_int_t)sqlite3_column_int64(st, 6), "queued_at",
				      (json_int_t)sqlite3_column_int64(st, 7));
		if (!e || json_array_append_new(arr, e) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list queued calls");
	*out = TG_TAKE_PTR(arr);
	return 0;
}

int tg_registry_decide_call(json_t **out, tg_registry *r, int64_t id, int approve,
			    const tg_actor *who)
{
	int rc;

	*out = NULL;
	rc = decide(r, id, approve ? "approved" : "denied", who, NULL, out);
	return rc < 0 ? rc : 0;
}
