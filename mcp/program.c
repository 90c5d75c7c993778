/*
 * mcp/program.c: the run_program meta-tool and the session's hooks into
 * bridged calls (docs/MCP.md, docs/BRIDGE.md). run_program is `toolgate
 * run` over MCP: the agent's one C program (source, args, calls, limits)
 * is vetted, built and run once in the sandbox with the bridge, never
 * registered, and kept content-addressed (the result names the run id).
 * The hooks given to the registry for a run and for a registered tool's
 * call make every bridged call, at any depth, count against the session's
 * call budget (the run itself is one tools/call), and, when the client
 * declared elicitation, ask it about calls that need a person.
 */
#include "mcp/internal.h"

#include <string.h>

static const char program_tool_json[] =
	"{\"name\":\"run_program\",\"title\":\"Run a one-off program\","
	"\"description\":\"Run one C11 program once, without registering it: it is vetted "
	"statically, built and run in a no-network sandbox, and may call the tools named in "
	"calls with tg_call_tool() of toolgate/tool.h (registered tools that hold no "
	"capabilities, or host:NAME tools of the operator, each host call waiting for a "
	"person). Every call it makes counts against this session's call budget and "
	"limits.max_tool_calls. The program reads args as one JSON object on stdin and "
	"writes one JSON value on stdout. The result gives the run id, the program's "
	"sha256, the findings, the outcome and the number of tool calls.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	"\"source\":{\"type\":\"string\",\"description\":\"the complete C11 source file\"},"
	"\"args\":{\"type\":\"object\",\"description\":\"the program's arguments\"},"
	"\"calls\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
	"\"tools the program may call: NAME or host:NAME\"},"
	"\"limits\":{\"type\":\"object\",\"properties\":{\"timeout_ms\":{\"type\":\"integer\"},"
	"\"memory_mb\":{\"type\":\"integer\"},\"output_kb\":{\"type\":\"integer\"},"
	"\"max_tool_calls\":{\"type\":\"integer\"}},\"additionalProperties\":false}},"
	"\"required\":[\"source\"],\"additionalProperties\":false},"
	"\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true,"
	"\"idempotentHint\":false,\"openWorldHint\":false}}";

json_t *tg_mcp_program_tool(void)
{
	json_t *v = NULL;

	if (tg_json_parse(&v, program_tool_json, sizeof(program_tool_json) - 1, NULL) < 0)
		return NULL;
	return v;
}

/* ---- hooks ------------------------------------------------------------------- */

static int hook_attempt(void *ctx, const char *caller, const char *callee, char *why,
			size_t whylen)
{
	tg_mcp_server *s = ctx;

	(void)caller;
	if (s->question) {
		/* 2026-07-28: a call of this run waits for a person's answer
		 * (input_required): nothing more runs before the retry */
		snprintf(why, whylen,
			 "an earlier call of this run waits for a person's approval "
			 "(input_required): the call to %.80s is refused until the retry",
			 callee);
		return 0;
	}
	s->calls++;
	if (s->opt.max_calls && tg_mcp_count(s, 0) > s->opt.max_calls) {
		s->denied++;
		snprintf(why, whylen,
			 "call budget exhausted: this session allows %u tool calls "
			 "(--max-calls / session_max_calls); the call to %.80s is refused",
			 s->opt.max_calls, callee);
		return 0;
	}
	return 1;
}

/* The run's journal (2026-07-28: a state of input_required carries it). */
static void hook_journaled(void *ctx, json_t *journal)
{
	tg_mcp_server *s = ctx;

	json_decref(s->journal);
	s->journal = journal;
}

void tg_mcp_session_hooks(tg_mcp_server *s, tg_call_hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->ctx = s;
	/* every call of this operation, at any depth, is the principal's */
	h->principal = tg_mcp_principal(s);
	h->attempt = hook_attempt;
	h->ask = tg_mcp_ask;
	/* 2026-07-28 with requestStates: replay the redeemed journal, keep
	 * this run's (docs/BRIDGE.md, "Replay after input_required") */
	h->replay = s->modern ? s->replay : NULL;
	h->journaled = s->modern && s->be.state_seal ? hook_journaled : NULL;
	/* logging and progress (notify.c): only when the client wants them */
	h->event = tg_mcp_events_wanted(s) ? tg_mcp_op_event : NULL;
}

/* ---- run_program ---------------------------------------------------------------- */

static int reply_error_text(tg_mcp_server *s, const json_t *id, const char *m)
{
	char text[2048];

	snprintf(text, sizeof(text), "run_program: %s", m);
	tg_mcp_sanitize(text);
	return tg_mcp_reply(s, id, json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
					     "text", text, "isError", 1));
}

static void audit(tg_mcp_server *s, const char *event, json_t *details)
{
	tg_error saved = *tg_error_last();

	if (s->be.audit && details && s->be.audit(s->be.ctx, &s->actor, event, NULL, details) < 0)
		tg_mcp_log_error("audit", event);
	json_decref(details);
	if (saved.code || saved.message[0])
		tg_error_set(saved.code, "%s", saved.message);
	else
		tg_error_clear();
}

int tg_mcp_call_program(tg_mcp_server *s, const json_t *id, const json_t *args)
{
	static const char *const keys[] = { "source", "args", "calls", "limits", NULL };
	_cleanup_json_ json_t *res = NULL, *empty = NULL;
	_cleanup_free_ char *dump = NULL;
	tg_call_hooks hooks;
	tg_program p = { 0 };
	const char *source = NULL, *status;
	tg_buf text = TG_BUF_INIT(0);
	char summary[160];
	int r, ok;

	if (tg_json_check_keys(args, keys, "arguments") < 0 ||
	    tg_json_get_string(&source, args, "source", 1) < 0) {
		audit(s, "mcp_call_invalid", json_pack("{s:s, s:s}", "meta", "run_program",
						       "reason", tg_error_last()->message));
		return reply_error_text(s, id, tg_error_last()->message);
	}
	p.source = source;
	p.source_len = strlen(source);
	p.args = json_object_get(args, "args");
	if (!p.args) {
		empty = json_object();
		if (!empty)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		p.args = empty;
	}
	p.calls = json_object_get(args, "calls");
	p.limits = json_object_get(args, "limits");
	tg_mcp_session_hooks(s, &hooks);
	r = s->be.run(s->be.ctx, &res, &p, &s->actor, &hooks);
	if (r < 0) {
		char why[1024];
		snprintf(why, sizeof(why), "%s", tg_error_last()->message);
		audit(s, "mcp_call_invalid", json_pack("{s:s, s:s}", "meta", "run_program",
						       "reason", why));
		if (r == TG_ERR_NOMEM)
			return r;
		if (r == TG_ERR_INVALID || r == TG_ERR_LIMIT || r == TG_ERR_DENIED ||
		    r == TG_ERR_NOTFOUND)
			return reply_error_text(s, id, why);
		return tg_mcp_reply_error(s, id, TG_RPC_INTERNAL_ERROR, "run_program: %s", why);
	}
	status = json_string_value(json_object_get(res, "status"));
	ok = status && strcmp(status, "ok") == 0;
	audit(s, "mcp_call", json_pack("{s:s, s:O?, s:O?, s:b}", "meta", "run_program", "run",
				       json_object_get(res, "run"), "tool_calls",
				       json_object_get(res, "tool_calls"), "ok", ok));
	snprintf(summary, sizeof(summary), "run %lld: %s (%lld tool calls)",
		 (long long)json_integer_value(json_object_get(res, "run")), status ? status : "?",
		 (long long)json_integer_value(json_object_get(res, "tool_calls")));
	dump = tg_json_dump(res);
	if (!dump || tg_buf_puts(&text, summary) < 0 || tg_buf_puts(&text, "\n") < 0 ||
	    tg_buf_puts(&text, dump) < 0) {
		tg_buf_free(&text);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	r = tg_mcp_reply(s, id, json_pack("{s:[{s:s, s:s}], s:O, s:b}", "content", "type", "text",
					  "text", text.ptr, "structuredContent", res, "isError",
					  !ok));
	tg_buf_free(&text);
	return r;
}
