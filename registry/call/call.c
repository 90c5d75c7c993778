/*
 * registry/call/call.c: tg_registry_call. Validate the arguments against the
 * active version's input schema (parsed once per version and handle:
 * schema_cache.c), find its binary in the build cache (its
 * key and bytes checked; rebuilt and re-checked when missing or not what was
 * built here, after checking the stored source still has the recorded
 * content hash), run it in the tool sandbox with the manifest's limits and
 * capabilities, and log the call: its intent before the tool runs and its
 * outcome after (calllog.c; the tool does not run when the intent cannot
 * be written). A version that asks for capabilities runs
 * only while a person's approval of that exact version stands (approval.c).
 * A schema, approval or tool failure is an ok=false result, not an error
 * code.
 */

#include <string.h>
#include "registry/call/call.h"

/* The cached binary of a version. The content hash is recomputed from the
 * source in the store on every call and must equal the registry's; the
 * cache hands out the binary only when it still hashes to what was recorded
 * when it was built here (reg_cached_binary); anything else is rebuilt (and
 * re-checked) from that source. */
static int binary_for(char **out, tg_registry *r, const char *name, unsigned v,
		      const char *hash, const json_t *caps)
{
	_cleanup_free_ char *bin = NULL, *src = NULL, *log = NULL;
	_cleanup_free_ const char **capv = NULL;
	tg_report *rep = NULL;
	tg_store *s;
	size_t len = 0, n = json_array_size(caps), i;
	char want[65];
	int ok = 0, rc;

	*out = NULL;
	if (strlen(hash) != 64 || strspn(hash, "0123456789abcdef") != 64)
		return tg_error_set(TG_ERR_INTERNAL, "%s v%u has no valid content hash", name, v);
	/* The registry's content hash was computed here from the source when
	 * the version was recorded (create, re-index), never read from a
	 * trailer; the commit it names is content-addressed. A cached binary
	 * counts only under the key of that hash and this host's build inputs,
	 * and only while its bytes are what was built (reg_cached_binary). */
	if ((rc = reg_cached_binary(&bin, r, hash)) < 0)
		return rc;
	if (bin) {
		*out = TG_TAKE_PTR(bin);
		return 0;
	}
	/* A miss: build again from the stored source, once it is shown to be
	 * the source that hash was computed from. */
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_get_file(&src, &len, s, name, v, "tool.c");
	if (rc < 0)
		return tg_error_prefix("store");
	reg_content_hash(want, src, len);
	if (strcmp(want, hash) != 0)
		return tg_error_set(TG_ERR_INTERNAL, "%s v%u: the stored source does not match its "
						     "content hash", name, v);
	capv = calloc(n + 1, sizeof(*capv));
	if (!capv)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++)
		capv[i] = json_string_value(json_array_get(caps, i));
	rc = reg_build(r, want, src, len, capv, n, &ok, &rep, &log, &bin);
	tg_report_free(rep);
	if (rc < 0)
		return rc;
	if (log || !ok)
		return tg_error_set(TG_ERR_INTERNAL, "%s v%u: rebuilding the cached binary failed",
				    name, v);
	*out = TG_TAKE_PTR(bin);
	return 0;
}

/* A successful result that does not match the version's output_schema is a
 * tool error (reason "invalid_output"): the caller never sees a value of
 * another shape than the one published. */
static int check_output(json_t *res, const json_t *oschema, unsigned sflags)
{
	char m[1100];
	json_t *value;

	if (!res || !json_is_object(oschema) || !json_is_true(json_object_get(res, "ok")))
		return 0;
	value = json_object_get(res, "result");
	if (tg_schema_validate_flags(oschema, value ? value : json_null(), "result", sflags) == 0)
		return 0;
	snprintf(m, sizeof(m), "the result does not match output_schema: %s",
		 tg_error_last()->message);
	tg_error_clear();
	if (json_object_set_new(res, "ok", json_false()) < 0 ||
	    json_object_set_new(res, "error", json_string(m)) < 0 ||
	    json_object_set_new(res, "reason", json_string("invalid_output")) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_object_del(res, "result");
	return 0;
}

/* A callee that holds capabilities, called under a test's or a re-test's
 * authority: it never runs (nobody approved the caller yet); the test's
 * "tool_results" fixture answers for it, and without one the call fails and
 * so does the test ("unexpected call"). Nothing is logged as a call. */
static int fixture_answer(json_t **out, const reg_bridge *parent, const char *name, unsigned v)
{
	const json_t *fx = parent ? json_object_get(parent->tool_results, name) : NULL;

	if (!fx) {
		if (parent && parent->unexpected && !parent->unexpected[0])
			snprintf(parent->unexpected, sizeof(parent->unexpected_buf), "tools:%s",
				 name);
		return tg_error_set(TG_ERR_DENIED, "%s v%u holds capabilities: in a test it is "
						   "answered only from the test's tool_results, "
						   "which has no entry for it", name, v);
	}
	*out = json_pack("{s:b, s:O, s:s, s:I, s:b, s:i}", "ok", 1, "result", fx, "name", name,
			 "version", (json_int_t)v, "fixture", 1, "wall_ms", 0);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* The arguments against the version's input schema. A top-level call's
 * "$input_responses" (the MCP client's answers to what the tool asked,
 * added by the MCP server to a retried call: docs/MCP.md, "A tool asking
 * for input") is not an argument of the schema: it is checked without it. */
static int schema_check(tg_registry *r, const json_t *schema, const json_t *args, int top)
{
	_cleanup_json_ json_t *bare = top ? tg_input_args_bare(args) : NULL;

	if (top && !bare)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return tg_schema_validate_flags(schema, top ? bare : args, "args",
					reg_schema_flags(&r->cfg, 0));
}

/* No active version of name: a top-level call of a tool whose newest
 * version waits for a person's approval says so and names the command
 * (issue 29), once the principal's one decision lets it see that version
 * (a write tool hidden from the session stays an unknown one). Otherwise,
 * or for a bridged call, the tool is unknown: TG_ERR_NOTFOUND. */
static int no_active(tg_registry *r, const char *name, int top)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *caps = NULL;
	const tg_principal *p = r->hooks ? r->hooks->principal : NULL;
	unsigned v;
	int rc, hidden = 0;

	if (!top)
		return tg_error_set(TG_ERR_NOTFOUND, "no active tool named %s", name);
	rc = reg_prepare(r, &st, "SELECT v.version, v.capabilities FROM tools t JOIN versions v "
				 "ON v.tool_id = t.id WHERE t.name = ?1 AND v.status = 'pending' "
				 "ORDER BY v.version DESC LIMIT 1");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "no active tool named %s", name);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "find tool");
	v = (unsigned)sqlite3_column_int64(st, 0);
	caps = reg_col_json(st, 1);
	if (tg_authorize(p, TG_ACTION_CALL, name, caps, &hidden) < 0 || hidden)
		return tg_error_set(TG_ERR_NOTFOUND, "no active tool named %s", name);
	return tg_error_set(TG_ERR_DENIED, "%s v%u is pending: it waits for a person's approval "
					   "and cannot be called until then (the operator runs "
					   "`toolgate approve %s@%u`)",
			    name, v, name, v);
}

int tg_registry_call(json_t **out, tg_registry *r, const char *name, const json_t *args,
		     const tg_actor *who)
{
	return reg_call_ex(out, r, name, args, who, NULL, NULL);
}

int tg_registry_call_logged(json_t **out, tg_registry *r, const char *name, const json_t *args,
			    const tg_actor *who, const char *event)
{
	if (event && (!event[0] || strlen(event) > 64))
		return tg_error_set(TG_ERR_INVALID, "audit event: must be 1 to 64 bytes");
	return reg_call_ex(out, r, name, args, who, NULL, event);
}

/* A real top-level call is sampled (record/samples.c); never a test's, a
 * re-test's or a callee's, and a workspace tool's only when config.json
 * allows it. */
static int sample_wanted(const tg_registry *r, int ws)
{
	return r->authority == TG_AUTHORITY_REAL && r->cfg.record_calls &&
	       (!ws || r->cfg.record_workspace_calls);
}

/* The bytes a sample's bridged replies may take: the tool's whole sample
 * share, at most a replay journal's cap. */
static size_t sample_tape_cap(const tg_registry *r)
{
	size_t cap = (size_t)r->cfg.record_tool_kb * 1024;
	return cap < REG_REPLAY_MAX_BYTES ? cap : REG_REPLAY_MAX_BYTES;
}

int reg_call_ex(json_t **out, tg_registry *r, const char *name, const json_t *args,
		const tg_actor *who, const reg_bridge *parent, const char *after)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *schema = NULL, *limits = NULL, *caps = NULL, *res = NULL;
	_cleanup_json_ json_t *oschema = NULL, *tool_args = NULL;
	_cleanup_free_ char *hash = NULL, *bin = NULL, *commit = NULL;
	char pinmsg[256];
	reg_bridge br;
	reg_tape tape = { 0 };
	_cleanup_json_ json_t *tape_rec = NULL; /* tape.rec's owner */
	reg_approval ap;
	int64_t tool_id, call_id = 0;
	unsigned v;
	int rc, ws_read = 0, ws_write = 0, deferred = 0, hidden = 0, sampled = 0;

	*out = NULL;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	/* a name outside the principal's patterns is refused before the
	 * lookup: a bridged call must not tell it whether such a tool exists */
	if ((rc = reg_authorize_name(r, name)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "SELECT v.version, v.input_schema, v.limits, v.capabilities, "
				 "v.content_hash, v.commit_id, t.id, o.schema, v.id FROM tools t JOIN "
				 "versions v ON v.tool_id = t.id AND v.version = t.active_version "
				 "LEFT JOIN output_schemas o ON o.version_id = v.id WHERE t.name = ?1");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_DONE) {
		reg_finalizep(&st);
		st = NULL;
		return no_active(r, name, !parent);
	}
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "find tool");
	v = (unsigned)sqlite3_column_int64(st, 0);
	limits = reg_col_json(st, 2);
	caps = reg_col_json(st, 3);
	hash = reg_col_strdup(st, 4);
	commit = reg_col_strdup(st, 5);
	tool_id = sqlite3_column_int64(st, 6);
	/* parsed once per version on this handle (schema_cache.c) */
	rc = reg_schema_get(r, sqlite3_column_int64(st, 8), commit,
			    (const char *)sqlite3_column_text(st, 1),
			    (const char *)sqlite3_column_text(st, 7), &schema, &oschema);
	if (rc < 0)
		return rc;
	reg_finalizep(&st);
	st = NULL;
	tg_prof_mark(TG_PROF_LOOKUP);
	if (!hash)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	reg_caps_from_json(caps, &ws_read, &ws_write);
	/* the one decision (authz.c), with the callee's capabilities known */
	rc = reg_authorize_call(r, name, v, caps, parent ? parent->depth + 1 : 0,
				parent && parent->oneoff, &hidden);
	if (rc < 0)
		return hidden ? tg_error_set(TG_ERR_NOTFOUND, "no active tool named %s", name) : rc;
	if (rc == REG_RUN_FIXTURE)
		return fixture_answer(out, parent, name, v);
	if (!args || !json_is_object(args) || schema_check(r, schema, args, !parent) < 0) {
		char m[1100];
		snprintf(m, sizeof(m), "invalid arguments: %s",
			 args && json_is_object(args) ? tg_error_last()->message
						       : "must be a JSON object");
		tg_error_clear();
		res = json_pack("{s:b, s:s, s:s, s:i}", "ok", 0, "error", m, "reason",
				"invalid_args", "wall_ms", 0);
	} else if (!parent && tg_input_pin_check(args, v, pinmsg, sizeof(pinmsg)) < 0) {
		/* a retry of a tool's input request runs the version that asked */
		res = json_pack("{s:b, s:s, s:s, s:i}", "ok", 0, "error", pinmsg, "reason",
				"version_changed", "wall_ms", 0);
	} else if ((rc = reg_approval_check(&ap, r, tool_id, name, v)) < 0) {
		return rc;
	} else if (!ap.stands) {
		res = json_pack("{s:b, s:s, s:s, s:i}", "ok", 0, "error", ap.why, "reason",
				"not_approved", "wall_ms", 0);
	} else if ((ws_read || ws_write) && !r->cfg.workspace) {
		res = json_pack("{s:b, s:s, s:s, s:i}", "ok", 0, "error",
				"the tool has a workspace capability but config.json sets no "
				"\"workspace\"", "reason", "no_workspace", "wall_ms", 0);
	} else {
		rc = binary_for(&bin, r, name, v, hash, caps);
		if (rc < 0)
			return rc;
		tg_prof_mark(TG_PROF_CHECKED);
		int bridged = reg_bridge_init(&br, r, who, name, v, caps, limits, parent);
		/* a call that will be sampled keeps its direct bridged calls'
		 * replies (replay.c's tape), within the tool's sample bytes */
		if (bridged && !parent && sample_wanted(r, ws_read || ws_write)) {
			tape.rec = tape_rec = json_array();
			tape.max_bytes = sample_tape_cap(r);
			br.tape = &tape;
		}
		/* fail closed: the tool runs only once its intent is recorded.
		 * A run that can act outside its result (a workspace it may
		 * write, calls through the bridge, a callee of such a run)
		 * starts only once the intent is durable; any other run has no
		 * effect but its result, which is handed out only after the
		 * outcome's barrier, and that barrier makes the intent durable
		 * too (calllog.c, "Deferred intents") */
		deferred = !bridged && !parent && !ws_write;
		if ((rc = reg_call_intent(r, &call_id, deferred, name, v, who)) < 0)
			return rc;
		if (!parent)
			reg_event(r, NULL, "call", 1, 3, "%s v%u: running", name, v);
		if (!parent && !(tool_args = tg_input_args_for_tool(args)))
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		rc = reg_run_tool_ex(&res, r, name, bin, limits, ws_read, ws_write, r->cfg.workspace,
				     parent ? args : tool_args,
				     bridged ? &br : NULL, parent ? parent->deadline_ms : 0);
		if (!parent && rc == 0)
			reg_event(r, NULL, "call", 2, 3, "%s v%u: %s after %lld ms", name, v,
				  json_is_true(json_object_get(res, "ok")) ? "ran" : "failed",
				  (long long)json_integer_value(json_object_get(res, "wall_ms")));
		if (rc < 0) {
			/* the run itself failed: record that as the outcome */
			_cleanup_json_ json_t *fail = NULL;
			tg_error saved = *tg_error_last();
			int bk;
			fail = json_pack("{s:b, s:s, s:s, s:i}", "ok", 0, "error", saved.message,
					 "reason", "run_failed", "wall_ms", 0);
			/* the backend that refused or failed it (a gVisor refusal) */
			if (fail && reg_tool_backend(r, name, &bk, NULL) == 0)
				json_object_set_new(fail, "backend", json_string(reg_backend_name(bk)));
			if (fail && reg_call_outcome(r, call_id, name, v, fail, who, NULL, 0) < 0)
				tg_error_clear();
			return tg_error_set(saved.code, "%s", saved.message);
		}
		if ((rc = check_output(res, oschema, reg_schema_flags(&r->cfg, 0))) < 0)
			return rc;
		if ((rc = reg_result_content(res)) < 0)
			return rc;
		tg_prof_mark(TG_PROF_RESULT);
	}
	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_object_set_new(res, "name", json_string(name));
	json_object_set_new(res, "version", json_integer(v));
	if (parent && commit)
		json_object_set_new(res, "commit", json_string(commit));
	/* a real top-level call that ran its tool is sampled with its outcome
	 * (record/samples.c); never a test's, a re-test's or a callee's, and a
	 * workspace tool's only when config.json allows it */
	if (call_id && !parent && sample_wanted(r, ws_read || ws_write) &&
	    (!tape.rec || !tape.over)) {
		r->sample_args = args;
		r->sample_journal = tape.rec;
	}
	rc = call_id ? reg_call_outcome(r, call_id, name, v, res, who, after, deferred)
		     : reg_call_record(r, name, v, res, who, after);
	sampled = r->sample_args != NULL;
	r->sample_args = NULL;
	r->sample_journal = NULL;
	if (rc < 0)
		return rc; /* never the result without its record */
	/* the canary of a newly active version (canary.c): a failure of its
	 * own never fails the call, whose outcome is recorded */
	if (sampled && reg_canary_after_call(r, name, res, who) < 0)
		tg_error_clear();
	*out = TG_TAKE_PTR(res);
	return 0;
}
