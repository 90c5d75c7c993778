/*
 * mcp/elicit.c: per-call approval through MCP elicitation (docs/MCP.md).
 * A bridged call that needs a person is already a pending, bound row of
 * the approval queue when the registry calls the session's ask hook. If
 * the client declared the elicitation capability (form mode) in an
 * initialize-era stdio session, this file sends it one elicitation/create
 * request naming the callee, its version, the arguments' digest and the
 * caller, with a requestedSchema of one boolean "approve", and reads the
 * session's input until the matching response, the approval timeout or
 * end of input: accept with approve true approves that row; decline,
 * cancel, accept with approve false, an error response or end of input
 * deny it; no answer in time is a timeout (deny). Requests and
 * notifications that arrive meanwhile are kept, in order, and served once
 * the current request is answered. It runs on the bridge's serving thread
 * while the session's own thread waits for the tool run, so the session
 * state is used by one thread at a time. Over HTTP the same request goes
 * out through the session's exchange (http_elicit.c: its GET stream) and
 * the answer comes back as a POST.
 */
#include "mcp/internal.h"

#include <errno.h>
#include <poll.h>
#include <string.h>



json_t *tg_mcp_elicit_params(tg_mcp_server *s, const tg_call_question *q)
{
	_cleanup_free_ char *args = json_dumps(q->args, JSON_COMPACT | JSON_SORT_KEYS |
							       JSON_ENSURE_ASCII);
	char msg[1800], runs[40] = "";
	json_t *params;

	if (!args)
		return NULL;
	if (q->run)
		snprintf(runs, sizeof(runs), " (run %lld)", (long long)q->run);
	/* ASCII only: the arguments are escaped JSON, names are tool names */
	snprintf(msg, sizeof(msg),
		 "toolgate: a tool call waits for your approval (call approval %lld).\n"
		 "callee: %s\nversion: %s\narguments sha256: %s\ncaller: %s%s\n"
		 "arguments: %.1000s%s\n"
		 "Approving runs exactly this call, with these arguments, once.",
		 (long long)q->id, q->callee, q->callee_version, q->args_sha256, q->caller, runs,
		 args, strlen(args) > 1000 ? "..." : "");
	/* every part is ASCII without controls: tool names, hex digests and
	 * the arguments as JSON with \u escapes; the newlines are ours */
	params = json_pack("{s:s, s:{s:s, s:{s:{s:s, s:s, s:s, s:b}}, s:[s]}, s:{s:{s:I, s:s, "
			   "s:s, s:s, s:s, s:s}}}",
			   "message", msg, "requestedSchema", "type", "object", "properties",
			   "approve", "type", "boolean", "title", "Approve this call",
			   "description",
			   "true runs exactly this call once; false denies it", "default", 0,
			   "required", "approve", "_meta", "io.toolgate/call_approval", "id",
			   (json_int_t)q->id, "callee", q->callee, "callee_version",
			   q->callee_version, "args_sha256", q->args_sha256, "binding", q->binding,
			   "caller", q->caller);
	if (!params)
		return NULL;
	/* form mode is named from 2025-11-25 on (absent means form) */
	if (s->modern || strcmp(s->protocol, TG_MCP_PROTOCOL_LATEST) == 0)
		json_object_set_new(params, "mode", json_string("form"));
	return params;
}

static json_t *elicit_request(tg_mcp_server *s, const tg_call_question *q, const char *rid)
{
	json_t *params = tg_mcp_elicit_params(s, q);

	if (!params)
		return NULL;
	return json_pack("{s:s, s:s, s:s, s:o}", "jsonrpc", "2.0", "id", rid, "method",
			 "elicitation/create", "params", params);
}

/* The client's response to an elicitation: 1 approve, 0 deny with *why. */
static int verdict_of(const json_t *msg, const char **why)
{
	const json_t *res = json_object_get(msg, "result");
	const json_t *content = json_object_get(res, "content");
	const char *action = json_string_value(json_object_get(res, "action"));

	*why = "declined";
	if (!action) {
		*why = "cancelled"; /* an error answer, or no action: nobody approved */
		return 0;
	}
	if (strcmp(action, "accept") == 0)
		return json_is_true(json_object_get(content, "approve"));
	if (strcmp(action, "cancel") == 0)
		*why = "cancelled";
	return 0;
}

/* A received line: 1 the answer to rid (*verdict, *why set), 0 anything
 * else (kept for later), <0 out of memory. */
static int take_line(tg_mcp_server *s, const char *line, size_t len, const char *rid,
		     int *verdict, const char **why)
{
	_cleanup_json_ json_t *msg = NULL;
	tg_json_limits lim = { s->opt.max_message, 64 };
	json_t *id;

	if (tg_json_parse(&msg, line, len, &lim) < 0 || !json_is_object(msg)) {
		tg_error_clear();
		return tg_mcp_deferred_push(s, line, len);
	}
	if (tg_mcp_cancel_line(s, msg))
		return 0; /* the call in flight is cancelled (cancel.c) */
	id = json_object_get(msg, "id");
	if (json_object_get(msg, "method") || !json_is_string(id) ||
	    strcmp(json_string_value(id), rid) != 0) {
		/* a stale answer (an earlier elicitation) is dropped like any
		 * response the server does not wait for */
		if (!json_object_get(msg, "method") && id &&
		    (json_object_get(msg, "result") || json_object_get(msg, "error")))
			return 0;
		return tg_mcp_deferred_push(s, line, len) < 0 ? -1 : 0;
	}
	*verdict = verdict_of(msg, why);
	return 1;
}

/* Over a transport without a reader (HTTP): one exchange. */
static int elicit_exchange(tg_mcp_server *s, const tg_call_question *q, const char *rid,
			   const char **why)
{
	_cleanup_json_ json_t *resp = NULL;
	json_t *req = elicit_request(s, q, rid);
	int r;

	if (!req)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r = s->exchange(s->exchange_ctx, req, &resp, q->timeout_ms);
	json_decref(req);
	if (r < 0)
		return r;
	if (r == 0) {
		*why = "timeout";
		return 0;
	}
	return verdict_of(resp, why);
}

static int elicit_locked(tg_mcp_server *s, const tg_call_question *q, const char **why);

/* The reader is shared with the watcher of cancel.c while a call runs. */
int tg_mcp_elicit_call(tg_mcp_server *s, const tg_call_question *q, const char **why)
{
	int r;

	pthread_mutex_lock(&s->io_mu);
	r = elicit_locked(s, q, why);
	pthread_mutex_unlock(&s->io_mu);
	return r;
}

static int elicit_locked(tg_mcp_server *s, const tg_call_question *q, const char **why)
{
	char rid[48];
	uint64_t until = tg_now_ms() + q->timeout_ms;
	int r, verdict = 0;

	if (!s->elicitation || (!s->io_rd && !s->exchange) || s->modern)
		return tg_error_set(TG_ERR_UNAVAILABLE, "the client cannot be asked");
	snprintf(rid, sizeof(rid), "toolgate-elicit-%u", ++s->elicit_seq);
	if (!s->io_rd)
		return elicit_exchange(s, q, rid, why);
	r = tg_mcp_queue(s, elicit_request(s, q, rid));
	if (r < 0 || (r = tg_mcp_write_out(s)) < 0)
		return r;
	for (;;) {
		const char *line;
		size_t len;
		int got = tg_mcp_reader_next(s->io_rd, &line, &len);
		uint64_t now;

		if (got == TG_MCP_READ_LINE) {
			r = take_line(s, line, len, rid, &verdict, why);
			if (r < 0)
				return r;
			if (r == 1)
				return verdict;
			continue;
		}
		if (got == TG_MCP_READ_OVERSIZE) {
			if ((r = tg_mcp_server_oversize(s)) < 0 || (r = tg_mcp_write_out(s)) < 0)
				return r;
			continue;
		}
		if (got == TG_MCP_READ_EOF) {
			*why = "cancelled";
			return 0;
		}
		now = tg_now_ms();
		if (now >= until) {
			*why = "timeout";
			return 0;
		}
		struct pollfd pfd = { .fd = s->io_in, .events = POLLIN };
		int pr = poll(&pfd, 1, (int)(until - now > 1000 ? 1000 : until - now));
		if (pr < 0 && errno != EINTR)
			return tg_error_errno(TG_ERR_IO, errno, "poll");
		if (pr > 0 && (r = tg_mcp_reader_fill(s->io_rd)) < 0)
			return r;
	}
}
