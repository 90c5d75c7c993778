/*
 * registry/call/run.c: one-off programs (`toolgate run`, docs/BRIDGE.md). The
 * agent submits one C program with its calls and limits; it is vetted,
 * built (the build cache, keyed like any tool's) and run once in the tool
 * sandbox with the bridge, and never registered. What ran is kept: the
 * source in programs (keyed by its SHA-256), the analysis report, the
 * arguments, calls, limits and outcome in runs, and an audit entry "run"
 * naming the source's and the report's digests, so a reviewer can see
 * exactly what ran (tg_registry_show_run: the row, the source, the report
 * and the audit entries of its bridged calls).
 *
 * Nobody reviewed the program, so what it may call is narrower than a
 * registered tool's: registered tools whose active version holds no
 * capabilities (they needed no person's approval either; checked when the
 * run starts and again at each call), and configured host tools, every
 * call of which waits for a person whatever the tool's policy.
 */

#include <string.h>
#include "registry/call/call.h"

/* A callee of a one-off program: an active tool holding no capabilities.
 * The answer tells the principal nothing it may not know (the one
 * decision, authz.c): a name outside its patterns is not looked up (the
 * bridge refuses each call to it, whether or not such a tool exists), and
 * a tool hidden from it (hide_write_tools) is answered as absent. */
static int check_callee(tg_registry *r, const char *name, size_t i)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *caps = NULL;
	int rc, hidden = 0;

	if (reg_authorize_name(r, name) < 0) {
		tg_error_clear();
		return 0;
	}
	rc = reg_prepare(r, &st, "SELECT v.capabilities FROM tools t JOIN versions v ON "
			 "v.tool_id = t.id AND v.version = t.active_version WHERE t.name = ?1");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_INVALID, "calls[%zu]: no active tool named %s", i, name);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "find tool");
	caps = reg_col_json(st, 0);
	if (tg_authorize(r->hooks ? r->hooks->principal : NULL, TG_ACTION_CALL, name, caps,
			 &hidden) < 0 && hidden)
		return tg_error_set(TG_ERR_INVALID, "calls[%zu]: no active tool named %s", i, name);
	tg_error_clear();
	if (json_array_size(caps) > 0)
		return tg_error_set(TG_ERR_DENIED, "calls[%zu]: %s holds capabilities a person "
						   "approved; a one-off program may call only tools "
						   "that hold none (register a tool instead)", i, name);
	return 0;
}

static int insert_program(tg_registry *r, const char *sha, const tg_program *p)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "INSERT OR IGNORE INTO programs(sha256, source) "
				     "VALUES(?1, ?2)");

	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, sha);
	sqlite3_bind_text(st, 2, p->source, (int)p->source_len, SQLITE_STATIC);
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "record a program");
}

/* The runs row, before the program runs (its id tags the bridged calls). */
static int insert_run(tg_registry *r, int64_t *id, const char *sha, const char *report,
		      const char *report_sha, const tg_program *p, const char *status,
		      const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *actor = reg_actor_string(who);
	_cleanup_free_ char *args = tg_json_dump(p->args);
	_cleanup_free_ char *calls = p->calls ? tg_json_dump(p->calls) : strdup("[]");
	_cleanup_free_ char *limits = p->limits ? tg_json_dump(p->limits) : strdup("{}");
	int rc;

	if (!actor || !args || !calls || !limits)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = insert_program(r, sha, p)) < 0)
		goto fail;
	rc = reg_prepare(r, &st, "INSERT INTO runs(program_sha256, report, report_sha256, args, "
				 "calls, limits, status, actor, at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, "
				 "?7, ?8, ?9)");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, sha);
	reg_bind_text(st, 2, report);
	reg_bind_text(st, 3, report_sha);
	reg_bind_text(st, 4, args);
	reg_bind_text(st, 5, calls);
	reg_bind_text(st, 6, limits);
	reg_bind_text(st, 7, status);
	reg_bind_text(st, 8, actor);
	sqlite3_bind_int64(st, 9, tg_time_now());
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record a run");
		goto fail;
	}
	*id = sqlite3_last_insert_rowid(r->db);
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

/* Final status, outcome and the audit entry "run". */
static int finish_run(tg_registry *r, int64_t id, const json_t *res, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *d = NULL;
	_cleanup_free_ char *text = tg_json_dump(res);
	int rc;

	d = json_pack("{s:I, s:O, s:O, s:O, s:O, s:O}", "run", (json_int_t)id, "program_sha256",
		      json_object_get(res, "program_sha256"), "report_sha256",
		      json_object_get(res, "report_sha256"), "status",
		      json_object_get(res, "status"), "tool_calls",
		      json_object_get(res, "tool_calls"), "wall_ms", json_object_get(res, "wall_ms"));
	if (!d || !text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* the sandbox backend it ran under (exec/run_tool.c; absent when the
	 * build failed and nothing ran) */
	if (json_object_get(res, "backend"))
		json_object_set(d, "backend", json_object_get(res, "backend"));
	if ((rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "UPDATE runs SET status = ?2, result = ?3, tool_calls = ?4, "
				 "wall_ms = ?5 WHERE id = ?1");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	reg_bind_text(st, 2, json_string_value(json_object_get(res, "status")));
	reg_bind_text(st, 3, text);
	sqlite3_bind_int64(st, 4, json_integer_value(json_object_get(res, "tool_calls")));
	sqlite3_bind_int64(st, 5, json_integer_value(json_object_get(res, "wall_ms")));
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record a run");
		goto fail;
	}
	if ((rc = reg_audit_append(r, who, "run", NULL, d)) < 0)
		goto fail;
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

int tg_registry_run_program(json_t **out, tg_registry *r, const tg_program *p,
			    const tg_actor *who)
{
	_cleanup_json_ json_t *cm = NULL, *m = NULL, *report = NULL, *res = NULL;
	_cleanup_free_ const char **capv = NULL;
	_cleanup_free_ char *rtext = NULL, *log = NULL, *bin = NULL;
	tg_analyze_opts ao = { 0 };
	tg_report *rep = NULL, *orep = NULL;
	const tg_policy *pol;
	json_t *caps, *c;
	char sha[65], rsha[65], hash[65];
	const char *status = "rejected";
	int64_t id = 0;
	size_t i, ncaps;
	int rc, ok = 0, pass;
	reg_bridge b;

	*out = NULL;
	/* the same text rules as a tool's source: no controls, no bidi */
	if ((rc = reg_check_source(p->source, p->source_len)) < 0)
		return rc;
	if (!json_is_object(p->args))
		return tg_error_set(TG_ERR_INVALID, "arguments: must be a JSON object");
	if ((rc = reg_limits_parse(NULL, &r->cfg, p->limits, "limits")) < 0)
		return rc;
	if ((rc = reg_need_sdk(r)) < 0)
		return rc;
	/* "O" takes a new reference to the caller's array; a fresh empty one is handed over with "o" */
	cm = p->calls ? json_pack("{s:O}", "calls", p->calls)
		      : json_pack("{s:o}", "calls", json_array());
	if (!cm)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (p->calls && !json_is_array(p->calls))
		return tg_error_set(TG_ERR_INVALID, "calls: must be an array");
	if ((rc = reg_bridge_check_calls(r, cm, NULL)) < 0)
		return rc;
	json_array_foreach(p->calls, i, c) {
		const char *s = json_string_value(c);
		if (strncmp(s, "host:", 5) != 0 && (rc = check_callee(r, s, i)) < 0)
			return rc;
	}
	if ((rc = reg_bridge_manifest(&m, cm)) < 0)
		return rc;
	caps = json_object_get(m, "capabilities");
	ncaps = json_array_size(caps);
	capv = calloc(ncaps + 1, sizeof(*capv));
	if (!capv)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < ncaps; i++)
		capv[i] = json_string_value(json_array_get(caps, i));
	if ((rc = reg_bridge_tables(r)) < 0 || (rc = reg_policy(r, &pol)) < 0)
		return rc;

	/* vet */
	ao.capabilities = capv;
	ao.ncapabilities = ncaps;
	ao.sdk_include_dir = r->sdk_include;
	ao.timeout_ms = r->cfg.analyze_timeout_ms;
	if (tg_analyze(&rep, pol, "program.c", p->source, p->source_len, &ao) < 0)
		return tg_error_prefix("analysis");
	pass = rep->pass;
	rc = tg_report_to_json(&report, rep);
	tg_report_free(rep);
	if (rc < 0)
		return rc;
	tg_sha256_hex(sha, p->source, p->source_len);
	res = json_pack("{s:s, s:O, s:I, s:I, s:b}", "program_sha256", sha, "findings",
			json_object_get(report, "findings"), "tool_calls", (json_int_t)0, "wall_ms",
			(json_int_t)0, "ok", 0);
	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");

	/* build */
	if (pass) {
		reg_content_hash(hash, p->source, p->source_len);
		rc = reg_build(r, hash, p->source, p->source_len, capv, ncaps, &ok, &orep, &log, &bin);
		if (rc < 0)
			return rc;
		if (orep) {
			_cleanup_json_ json_t *oj = NULL;
			if (tg_report_to_json(&oj, orep) == 0)
				json_object_set(report, "object", json_object_get(oj, "findings"));
			tg_report_free(orep);
		}
		status = log ? "failed" : !ok ? "rejected" : "running";
		if (log)
			json_object_set_new(res, "error", json_string(log));
		else if (!ok)
			json_object_set_new(res, "error", json_string("the object file check rejected "
								      "the build"));
	} else {
		json_object_set_new(res, "error", json_string("the analyzer rejected the source"));
	}
	rtext = tg_json_dump(report);
	if (!rtext)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	tg_sha256_hex(rsha, rtext, strlen(rtext));
	json_object_set_new(res, "report_sha256", json_string(rsha));
	rc = insert_run(r, &id, sha, rtext, rsha, p, status, who);
	if (rc < 0)
		return rc;
	json_object_set_new(res, "run", json_integer(id));

	/* run */
	if (strcmp(status, "running") == 0) {
		_cleanup_json_ json_t *rr = NULL;
		int bridged = reg_bridge_init(&b, r, who, "", 0, caps, p->limits, NULL);
		snprintf(b.caller, sizeof(b.caller), "program:%.16s", sha);
		b.run_id = id;
		b.oneoff = 1;
		b.test_mode = 0;
		rc = reg_run_tool_ex(&rr, r, NULL, bin, p->limits, 0, 0, NULL, p->args, bridged ? &b : NULL,
				     0);
		if (rc < 0)
			return rc;
		json_object_update(res, rr);
		status = json_is_true(json_object_get(rr, "ok")) ? "ok" : "error";
	}
	json_object_set_new(res, "status", json_string(status));
	if (!json_object_get(res, "tool_calls"))
		json_object_set_new(res, "tool_calls", json_integer(0));
	rc = finish_run(r, id, res, who);
	if (rc < 0)
		return rc;
	*out = TG_TAKE_PTR(res);
	return 0;
}

int tg_registry_show_run(json_t **out, tg_registry *r, int64_t id)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *res = NULL, *calls = json_array();
	int rc;

	*out = NULL;
	if (!calls)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_table_exists(r, "runs")) < 0 ||
	    (rc == 1 && (rc = reg_table_exists(r, "programs")) < 0))
		return rc;
	if (rc == 0) /* no run was ever made */
		return tg_error_set(TG_ERR_NOTFOUND, "no run %lld", (long long)id);
	rc = reg_prepare(r, &st, "SELECT r.program_sha256, p.source, r.report, r.report_sha256, "
				 "r.args, r.calls, r.limits, r.status, r.result, r.tool_calls, "
				 "r.wall_ms, r.actor, r.at FROM runs r JOIN programs p ON p.sha256 = "
				 "r.program_sha256 WHERE r.id = ?1");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "no run %lld", (long long)id);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read a run");
	res = json_pack("{s:I, s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:s, s:o, s:I, s:I, s:s, s:I}",
			"run", (json_int_t)id, "program_sha256", sqlite3_column_text(st, 0),
			"source", sqlite3_column_text(st, 1), "report", reg_col_json(st, 2),
			"report_sha256", sqlite3_column_text(st, 3), "args", reg_col_json(st, 4),
			"calls", reg_col_json(st, 5), "limits", reg_col_json(st, 6), "status",
			sqlite3_column_text(st, 7), "outcome", reg_col_json(st, 8), "tool_calls",
			(json_int_t)sqlite3_column_int64(st, 9), "wall_ms",
			(json_int_t)sqlite3_column_int64(st, 10), "actor",
			sqlite3_column_text(st, 11), "time", (json_int_t)sqlite3_column_int64(st, 12));
	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	reg_finalizep(&st);
	st = NULL;
	/* the run's bridged calls and approvals, its callees' too (details.run) */
	rc = reg_prepare(r, &st, "SELECT seq, at, event, tool, details FROM audit WHERE "
				 "json_extract(details, '$.run') = ?1 AND event <> 'run' ORDER BY seq");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *tool = (const char *)sqlite3_column_text(st, 3);
		json_t *e = json_pack("{s:I, s:I, s:s, s:o, s:o}", "seq",
				      (json_int_t)sqlite3_column_int64(st, 0), "time",
				      (json_int_t)sqlite3_column_int64(st, 1), "event",
				      (const char *)sqlite3_column_text(st, 2), "tool",
				      tool ? json_string(tool) : json_null(), "details",
				      reg_col_json(st, 4));
		if (!e || json_array_append_new(calls, e) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read the run's calls");
	json_object_set(res, "entries", calls);
	*out = TG_TAKE_PTR(res);
	return 0;
}
