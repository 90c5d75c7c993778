/*
 * mcp/tools.c: tools/call for an MCP session. The meta-tools
 * (create_tool, rollback_tool, tool_history, list_tool_versions) map to the
 * registry; any other name runs the active version of a registered tool.
 * Session governance lives here: every tools/call attempt counts against
 * the call budget (meta-tools, failures and denials included), every
 * create_tool against the create budget, and a denial is an isError result
 * naming the budget. Unknown tools are JSON-RPC -32602; bad arguments and
 * tool failures are isError results the agent can act on. Every attempt is
 * in the audit log with the session id: the registry records the calls and
 * submissions it runs, this file the ones that stop before it.
 */
#include "mcp/internal.h"

#include <string.h>

/* ---- results ------------------------------------------------------------------- */

/* {content:[{type:text,text}], structuredContent?, isError?}; borrows structured. */
static json_t *tool_result(const json_t *structured, const char *text, int is_error)
{
	json_t *res = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text", text);

	if (!res)
		return NULL;
	if (json_is_object(structured) &&
	    json_object_set(res, "structuredContent", (json_t *)structured) < 0)
		goto fail;
	if (is_error && json_object_set_new(res, "isError", json_true()) < 0)
		goto fail;
	return res;
fail:
	json_decref(res);
	return NULL;
}

static int reply_text(tg_mcp_server *s, const json_t *id, int is_error, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A result with $content (docs/MCP.md): its blocks in order, checked again
 * here whatever backend answered (common/content.c), and the rest of the
 * object, if any, as structuredContent. */
static int reply_content(tg_mcp_server *s, const json_t *id, const json_t *result)
{
	char why[512];
	json_t *res;
	_cleanup_json_ json_t *rest = NULL;

	if (tg_content_check(result, why, sizeof(why)) < 0)
		return reply_text(s, id, 1, TG_CONTENT_REFUSED "%s", why);
	res = json_pack("{s:o}", "content", tg_content_blocks(result));
	rest = tg_content_rest(result);
	if (res && rest && json_object_set(res, "structuredContent", rest) < 0) {
		json_decref(res);
		res = NULL;
	}
	return tg_mcp_reply(s, id, res);
}

static int reply_text(tg_mcp_server *s, const json_t *id, int is_error, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int reply_text(tg_mcp_server *s, const json_t *id, int is_error, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (tg_utf8_valid(text, strlen(text)) != 0)
		tg_mcp_sanitize(text);
	return tg_mcp_reply(s, id, tool_result(NULL, text, is_error));
}

/* The structured document as text too (summary line first, if any). */
static int reply_structured(tg_mcp_server *s, const json_t *id, const json_t *doc,
			    const char *summary, int is_error)
{
	_cleanup_free_ char *dump = tg_json_dump(doc);
	tg_buf text = TG_BUF_INIT(0);
	int r;

	if (!dump)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((summary && (tg_buf_puts(&text, summary) < 0 || tg_buf_puts(&text, "\n") < 0)) ||
	    tg_buf_puts(&text, dump) < 0) {
		tg_buf_free(&text);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	r = tg_mcp_reply(s, id, tool_result(doc, text.ptr, is_error));
	tg_buf_free(&text);
	return r;
}

/* A failure of a registry operation: bad input and refusals are results the
 * agent can act on; an unknown name is -32602; the rest is an internal error. */
static int reply_failure(tg_mcp_server *s, const json_t *id, int code, const char *what)
{
	const char *msg = tg_error_last()->message;

	switch (code) {
	case TG_ERR_INVALID:
	case TG_ERR_LIMIT:
	case TG_ERR_DENIED:
	case TG_ERR_EXISTS:
	case TG_ERR_CONFLICT:
	case TG_ERR_NOTFOUND:
		return reply_text(s, id, 1, "%s: %s", what, msg[0] ? msg : tg_error_code_name(code));
	case TG_ERR_NOMEM:
		return code;
	default:
		return tg_mcp_reply_error(s, id, TG_RPC_INTERNAL_ERROR, "%s: %s", what,
					  msg[0] ? msg : tg_error_code_name(code));
	}
}

/* ---- audit ---------------------------------------------------------------------- */

/* An audit event for what the registry does not record itself. details is
 * stolen. A failing audit write is logged, not fatal to the session. The
 * thread's error (often the reason being audited, about to be answered) is
 * left as it was. */
static void audit(tg_mcp_server *s, const char *event, const char *tool, json_t *details)
{
	static const char *const refusals[] = { "mcp_denied", "mcp_unknown_tool",
						"mcp_call_invalid", "mcp_create_invalid" };
	tg_error saved = *tg_error_last();
	int counted = 0;
	size_t i;

	/* a refusal already audited in full this minute is only counted into
	 * its kind's next mcp_refusals entry */
	for (i = 0; i < TG_ARRAY_SIZE(refusals) && !counted; i++)
		counted = strcmp(event, refusals[i]) == 0 &&
			  tg_mcp_refusal_counted(s, event, tool, details);
	if (!counted && s->be.audit) {
		const char *t = tool && tg_name_valid(tool) ? tool : NULL;
		if (s->be.audit(s->be.ctx, &s->actor, event, t, details) < 0)
			tg_mcp_log_error("audit", event);
	}
	json_decref(details);
	/* counted or written, the answer still says why */
	if (saved.code || saved.message[0])
		tg_error_set(saved.code, "%s", saved.message);
	else
		tg_error_clear();
}

/* ---- arguments ------------------------------------------------------------------- */

/* name (required, a valid tool name) and nothing outside allowed. */
static int meta_args(const json_t *args, const char *const *allowed, const char **name)
{
	int r = tg_json_check_keys(args, allowed, "arguments");
	if (r < 0)
		return r;
	r = tg_json_get_string(name, args, "name", 1);
	if (r < 0)
		return tg_error_prefix("arguments");
	if (!tg_name_valid(*name))
		return tg_error_set(TG_ERR_INVALID,
				    "arguments: name: must match ^[a-z][a-z0-9_]{0,63}$");
	return 0;
}

/* ---- the one decision ------------------------------------------------------------- */

/* Ask the registry's one decision (tg_authorize) whether this session's
 * principal may do act a on tool name; when not, answer the request
 * (JSON-RPC invalid params, HTTP 403) with the reason, count and audit
 * the refusal, and return 1. */
static int refused(tg_mcp_server *s, const json_t *id, tg_action a, const char *name,
		   const char *meta)
{
	static const char *const acts[] = { "call", "list", "create", "rollback", "history",
					    "approve" };
	char why[1100];

	if (tg_mcp_tool_allowed(s, a, name))
		return 0;
	snprintf(why, sizeof(why), "%s", tg_error_last()->message);
	tg_error_clear();
	s->forbidden = 1;
	s->denied++;
	audit(s, "mcp_denied", name,
	      meta ? json_pack("{s:s, s:s, s:s}", "right", "tools", "act", acts[a], "meta", meta)
		   : json_pack("{s:s}", "right", "tools"));
	tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "Invalid params: %s%s%s",
			   meta ? meta : "", meta ? ": " : "", why);
	return 1;
}

/* ---- meta-tools -------------------------------------------------------------------- */

static int call_create(tg_mcp_server *s, const json_t *id, const json_t *args)
{
	_cleanup_json_ json_t *res = NULL;
	const char *source = NULL, *name = NULL, *status, *verdict;
	tg_submission sub;
	char summary[256];
	int r, ok;

	s->creates++;
	if (s->opt.max_creates && tg_mcp_count(s, 1) > s->opt.max_creates) {
		s->denied++;
		s->spent = 1;
		audit(s, "mcp_denied", json_string_value(json_object_get(args, "name")),
		      json_pack("{s:s, s:s, s:I}", "meta", "create_tool", "budget", "creates",
				"limit", (json_int_t)s->opt.max_creates));
		return reply_text(s, id, 1,
				  "create budget exhausted: this session allows %u create_tool "
				  "submissions (--max-creates / session_max_creates)",
				  s->opt.max_creates);
	}
	if (tg_json_get_string(&source, args, "source", 1) < 0 ||
	    tg_json_get_string(&name, args, "name", 1) < 0) {
		audit(s, "mcp_create_invalid", NULL,
		      json_pack("{s:s}", "reason", tg_error_last()->message));
		return reply_text(s, id, 1, "create_tool: arguments: %s", tg_error_last()->message);
	}
	if (tg_mcp_is_meta_tool(name)) {
		audit(s, "mcp_create_invalid", name,
		      json_pack("{s:s}", "reason", "reserved name"));
		return reply_text(s, id, 1,
				  "create_tool: name: \"%s\" is reserved for a toolgate meta-tool",
				  name);
	}
	/* a version of NAME replaces it for every principal: only one whose
	 * patterns name it may submit it */
	if (refused(s, id, TG_ACTION_CREATE, name, "create_tool"))
		return 0;
	sub.manifest = args;
	sub.source = source;
	sub.source_len = strlen(source);
	{
		/* the tests' bridged calls: this session's principal and budget */
		tg_call_hooks hooks;
		tg_mcp_session_hooks(s, &hooks);
		hooks.ask = NULL;
		hooks.replay = NULL;
		hooks.journaled = NULL;
		r = s->be.create(s->be.ctx, &res, &sub, &s->actor, &hooks);
	}
	s->toolset_dirty = 1;
	if (r < 0) {
		audit(s, "mcp_create_invalid", name,
		      json_pack("{s:s}", "reason", tg_error_last()->message));
		return reply_failure(s, id, r, "create_tool");
	}
	status = json_string_value(json_object_get(res, "status"));
	verdict = json_string_value(json_object_get(res, "verdict"));
	ok = status && (strcmp(status, "active") == 0 || strcmp(status, "pending") == 0);
	snprintf(summary, sizeof(summary), "%s v%lld: %s (verdict %s)%s", name,
		 (long long)json_integer_value(json_object_get(res, "version")),
		 status ? status : "?", verdict ? verdict : "?",
		 !ok ? ": rejected, see reason, findings and tests"
		     : strcmp(status, "pending") == 0
			       ? ": waits for a person's approval (toolgate approve)"
			       : ": registered");
	return reply_structured(s, id, res, summary, !ok);
}

static int call_rollback(tg_mcp_server *s, const json_t *id, const json_t *args)
{
	static const char *const allowed[] = { "name", "version", NULL };
	_cleanup_json_ json_t *res = NULL;
	const char *name = NULL;
	int64_t to = 0;
	int r;

	r = meta_args(args, allowed, &name);
	if (r == 0 && tg_json_get_int(&to, args, "version", 0) < 0)
		r = tg_error_prefix("arguments");
	if (r == 0 && json_object_get(args, "version") && (to < 1 || to > (int64_t)UINT32_MAX))
		r = tg_error_set(TG_ERR_INVALID, "arguments: version: must be 1 or more");
	if (r < 0) {
		audit(s, "mcp_call_invalid", name,
		      json_pack("{s:s, s:s}", "meta", "rollback_tool", "reason",
				tg_error_last()->message));
		return reply_text(s, id, 1, "rollback_tool: %s", tg_error_last()->message);
	}
	if (refused(s, id, TG_ACTION_ROLLBACK, name, "rollback_tool"))
		return 0;
	/* only versions whose approval stands, and that this session may see */
	r = s->be.rollback(s->be.ctx, &res, name, (unsigned)to,
			   s->opt.hide_write_tools ? TG_ROLLBACK_HIDE_WRITE : 0, &s->actor);
	s->toolset_dirty = 1;
	if (r < 0) {
		char why[1024];
		snprintf(why, sizeof(why), "%s", tg_error_last()->message);
		audit(s, "mcp_call_failed", name,
		      json_pack("{s:s, s:s}", "meta", "rollback_tool", "reason", why));
		tg_error_set(r, "%s", why);
		return reply_failure(s, id, r, "rollback_tool");
	}
	return reply_structured(s, id, res, NULL, 0);
}

static int asks_write(const json_t *v)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(v, "capabilities"), i, c) {
		if (json_is_string(c) && strcmp(json_string_value(c), "workspace:write") == 0)
			return 1;
	}
	return 0;
}

/* A session that hides write tools does not see their versions either:
 * drop the versions asking for workspace:write, and the activations and
 * rollbacks that name one (as target or origin). */
static int hide_write_versions(json_t *history)
{
	json_t *vers = json_object_get(history, "versions");
	json_t *hidden = json_array(), *v, *e, *h;
	const char *arrays[] = { "events", "activations", NULL };
	size_t i, k, a;

	if (!hidden)
		return -1;
	for (i = json_array_size(vers); i-- > 0;) {
		v = json_array_get(vers, i);
		if (asks_write(v)) {
			json_array_append(hidden, json_object_get(v, "version"));
			json_array_remove(vers, i);
		}
	}
	for (a = 0; arrays[a]; a++) {
		json_t *evs = json_object_get(history, arrays[a]);
		for (i = json_array_size(evs); i-- > 0;) {
			int drop = 0;
			e = json_array_get(evs, i);
			json_array_foreach(hidden, k, h) {
				if (json_equal(json_object_get(e, "version"), h) ||
				    json_equal(json_object_get(e, "from_version"), h))
					drop = 1;
			}
			if (drop)
				json_array_remove(evs, i);
		}
	}
	json_array_foreach(hidden, k, h) {
		if (json_equal(json_object_get(history, "active"), h))
			json_object_set_new(history, "active", json_null());
	}
	json_decref(hidden);
	return 0;
}

/* tool_history, or list_tool_versions (versions only, summarised). */
static int call_history(tg_mcp_server *s, const json_t *id, const json_t *args, int versions_only)
{
	static const char *const allowed[] = { "name", "cursor", "details", NULL };
	const char *meta = versions_only ? "list_tool_versions" : "tool_history";
	_cleanup_json_ json_t *res = NULL;
	_cleanup_json_ json_t *out = NULL;
	const char *name = NULL, *cursor = NULL;
	const json_t *det;
	int r;

	r = meta_args(args, allowed, &name);
	if (r == 0 && tg_json_get_string(&cursor, args, "cursor", 0) < 0)
		r = tg_error_prefix("arguments");
	det = json_object_get(args, "details");
	if (r == 0 && det && !json_is_boolean(det))
		r = tg_error_set(TG_ERR_INVALID, "arguments: details: must be a boolean");
	if (r < 0) {
		audit(s, "mcp_call_invalid", NULL,
		      json_pack("{s:s, s:s}", "meta", meta, "reason", tg_error_last()->message));
		return reply_text(s, id, 1, "%s: %s", meta, tg_error_last()->message);
	}
	if (refused(s, id, TG_ACTION_HISTORY, name, meta))
		return 0;
	r = s->be.history(s->be.ctx, &res, name);
	audit(s, r < 0 ? "mcp_call_failed" : "mcp_meta_call", name,
	      json_pack("{s:s, s:b}", "meta", meta, "ok", r == 0));
	if (r < 0)
		return reply_failure(s, id, r, meta);
	if (s->opt.hide_write_tools && hide_write_versions(res) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* a page at a time: a long history is never one huge answer */
	r = tg_mcp_history_page(&out, res, cursor, json_is_true(det), versions_only);
	if (r == TG_ERR_INVALID)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "Invalid params: %s: %s",
					  meta, tg_error_last()->message);
	if (r < 0)
		return r;
	return reply_structured(s, id, out, NULL, 0);
}

/* ---- registered tools ------------------------------------------------------------- */

static int unknown_tool(tg_mcp_server *s, const json_t *id, const char *name)
{
	size_t n = strnlen(name, 128);

	/* Cut at a character boundary: the name is UTF-8 from the peer. */
	while (n > 0 && n < strlen(name) && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;
	audit(s, "mcp_unknown_tool", name, json_pack("{s:s%}", "name", name, n));
	return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "Unknown tool: %.128s", name);
}

static int call_registered(tg_mcp_server *s, const json_t *id, const char *name,
			   const json_t *args)
{
	_cleanup_json_ json_t *res = NULL, *run_args = NULL;
	const json_t *result;
	const char *err;
	char why[1024];
	int r;

	if (!tg_name_valid(name))
		return unknown_tool(s, id, name);
	/* a retry's answers to what the tool asked (tool_input.c) */
	if ((r = tg_mcp_tool_input_args(s, args, &run_args)) < 0)
		return r;
	if (run_args)
		args = run_args;
	/* a tool hidden from this session (hide_write_tools) is refused by the
	 * registry's one decision once the call path knows its capabilities:
	 * TG_ERR_NOTFOUND, answered as an unknown tool below */
	if (s->be.call_hooked) {
		/* its bridged calls count against the session's budget too */
		tg_call_hooks hooks;
		tg_mcp_session_hooks(s, &hooks);
		r = s->be.call_hooked(s->be.ctx, &res, name, args, &s->actor, &hooks);
	} else {
		r = s->be.call(s->be.ctx, &res, name, args, &s->actor);
	}
	if (r == TG_ERR_NOTFOUND)
		return unknown_tool(s, id, name);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", tg_error_last()->message);
		audit(s, "mcp_call_failed", name, json_pack("{s:s}", "reason", why));
		tg_error_set(r, "%s", why);
		return reply_failure(s, id, r, name);
	}
	/* every call of the session is in the audit chain (issue: calls and
	 * submissions land in the audit log with the session id); the registry
	 * recorded the call's intent and outcome (and, when the backend logs
	 * calls, this entry too, in the outcome's transaction), and this entry
	 * failing is an error to the agent, never the tool's result (fail
	 * closed) */
	if (s->be.audit && !s->be.logs_calls) {
		_cleanup_json_ json_t *d = json_pack("{s:O?, s:b}", "version",
						     json_object_get(res, "version"), "ok",
						     json_is_true(json_object_get(res, "ok")));
		if (!d)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		r = s->be.audit(s->be.ctx, &s->actor, "mcp_call", name, d);
		if (r < 0) {
			tg_mcp_log_error("audit", "mcp_call");
			return reply_failure(s, id, r, name);
		}
	}
	if (tg_mcp_tool_input_version(s, res, why, sizeof(why)) < 0) {
		audit(s, "mcp_state_refused", name, json_pack("{s:s}", "reason", why));
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "Invalid params: %s", why);
	}
	if (json_is_true(json_object_get(res, "ok"))) {
		_cleanup_free_ char *text = NULL;
		result = json_object_get(res, "result");
		if (!result)
			result = json_null();
		if (tg_input_required_has(result)) {
			/* the tool asks its client for input (tool_input.c) */
			r = tg_mcp_tool_input_ask(s, id, name, res, why, sizeof(why));
			return r != 0 ? (r > 0 ? 0 : r) : reply_text(s, id, 1, "%s", why);
		}
		text = tg_json_dump(result);
		if (!text)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		if (tg_content_has(result))
			return reply_content(s, id, result);
		{
			/* every success carries structuredContent (mcp_resources.c) */
			_cleanup_json_ json_t *sc = tg_mcp_structured(result);
			return tg_mcp_reply(s, id, tool_result(sc, text, 0));
		}
	}
	err = json_string_value(json_object_get(res, "error"));
	return reply_text(s, id, 1, "%s", err && err[0] ? err : "the tool failed");
}

/* ---- tools/call -------------------------------------------------------------------- */

static int dispatch(tg_mcp_server *s, const json_t *id, const char *name, const json_t *args);

static int with_progress(tg_mcp_server *s, const json_t *id, const char *name,
			 const json_t *args, const json_t *params);

int tg_mcp_tools_call(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	_cleanup_json_ json_t *empty = NULL;
	const json_t *args;
	const char *name = NULL;

	tg_prof_mark(TG_PROF_CALL);
	s->calls++;
	if (params && json_is_string(json_object_get(params, "name")))
		name = json_string_value(json_object_get(params, "name"));
	if (s->opt.max_calls && tg_mcp_count(s, 0) > s->opt.max_calls) {
		s->denied++;
		s->spent = 1;
		audit(s, "mcp_denied", name,
		      json_pack("{s:s, s:I}", "budget", "calls", "limit",
				(json_int_t)s->opt.max_calls));
		return reply_text(s, id, 1,
				  "call budget exhausted: this session allows %u tool calls "
				  "(--max-calls / session_max_calls)",
				  s->opt.max_calls);
	}
	if (!name) {
		audit(s, "mcp_call_invalid", NULL,
		      json_pack("{s:s}", "reason", "tools/call: name must be a string"));
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: tools/call needs a name (a string)");
	}
	if (refused(s, id, TG_ACTION_CALL, name, NULL))
		return 0;
	args = json_object_get(params, "arguments");
	if (args && !json_is_object(args)) {
		audit(s, "mcp_call_invalid", name,
		      json_pack("{s:s}", "reason", "arguments must be an object"));
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: arguments must be an object");
	}
	if (args && (json_object_get(args, TG_INPUT_RESPONSES_KEY) ||
		     json_object_get(args, TG_INPUT_VERSION_KEY))) {
		const char *k = json_object_get(args, TG_INPUT_RESPONSES_KEY)
					? TG_INPUT_RESPONSES_KEY
					: TG_INPUT_VERSION_KEY;
		audit(s, "mcp_call_invalid", name,
		      json_pack("{s:s, s:s}", "reason", "arguments: a reserved member", "member", k));
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: arguments: %s is reserved (a retry's "
					  "answers go in inputResponses, with the requestState)", k);
	}
	if (!args) {
		empty = json_object();
		if (!empty)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		args = empty;
	}
	return with_progress(s, id, name, args, params);
}

/* The call between its first and last progress steps (notify.c; nothing
 * without a progressToken). */
static int with_progress(tg_mcp_server *s, const json_t *id, const char *name,
			 const json_t *args, const json_t *params)
{
	char msg[128];
	int r;

	tg_mcp_progress_begin(s, params);
	snprintf(msg, sizeof(msg), "%s: started", name);
	tg_mcp_progress(s, 0, 0, msg);
	if (s->modern) {
		/* 2026-07-28: a retry may carry an approval's answer, and a call
		 * that needs a person turns the answer into input_required */
		size_t amark = s->out.len;
		r = tg_mcp_mrtr_begin(s, id, name, args, params);
		if (r == 0)
			r = tg_mcp_mrtr_end(s, id, amark, dispatch(s, id, name, args));
		else if (r > 0)
			r = 0;
	} else {
		r = dispatch(s, id, name, args);
	}
	/* a retry's answers are this request's only (tool_input.c) */
	tg_mcp_tool_input_clear(s);
	snprintf(msg, sizeof(msg), "%s: done", name);
	if (r >= 0)
		tg_mcp_progress_end(s, msg);
	s->progress_token = NULL;
	return r;
}

static int dispatch(tg_mcp_server *s, const json_t *id, const char *name, const json_t *args)
{
	if (strcmp(name, "create_tool") == 0)
		return call_create(s, id, args);
	if (strcmp(name, "rollback_tool") == 0)
		return call_rollback(s, id, args);
	if (strcmp(name, "tool_history") == 0)
		return call_history(s, id, args, 0);
	if (strcmp(name, "list_tool_versions") == 0)
		return call_history(s, id, args, 1);
	if (strcmp(name, "run_program") == 0 && s->be.run)
		return tg_mcp_call_program(s, id, args);
	return call_registered(s, id, name, args);
}
