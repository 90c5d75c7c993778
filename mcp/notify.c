/*
 * mcp/notify.c: MCP logging and progress for a session. logging/setLevel
 * sets the least severe level the client wants (RFC 5424 names as MCP
 * spells them; none is sent before the client sets one; a 2026-07-28
 * request names it in _meta instead, modern.c); the operation's
 * events (tg_call_hooks.event: the phases of create_tool, diagnostics, a
 * tool's stderr, a call's start and end) become notifications/message at
 * or above that level and, when the tools/call carried
 * _meta.progressToken, notifications/progress with a progress that only
 * grows. Both are queued before the request's answer: on stdio they are
 * written at once, while the request runs; over HTTP the live hook takes
 * them at once into the request's SSE stream (http_live.c).
 * It calls only session.c.
 */
#include "mcp/internal.h"

#include <string.h>

static const char *const levels[] = { "debug", "info",     "notice", "warning",
				      "error", "critical", "alert",  "emergency" };

static int level_of(const char *name)
{
	size_t i;

	for (i = 0; name && i < TG_ARRAY_SIZE(levels); i++) {
		if (strcmp(name, levels[i]) == 0)
			return (int)i;
	}
	return -1;
}

int tg_mcp_log_level_of(const char *name)
{
	return level_of(name) + 1;
}

int tg_mcp_set_level(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "level"));
	int l = level_of(name);

	if (l < 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: level must be one of debug, info, notice, "
					  "warning, error, critical, alert, emergency");
	s->log_level = l + 1;
	return tg_mcp_reply(s, id, json_object());
}

/* On stdio in the initialize era a notification is written at once, while
 * the request runs: the client sees each phase as it happens (and the SDK
 * hands a progress to its request's handler only before the answer
 * arrives). 2026-07-28 requests keep theirs queued: their answer may be
 * cut back to a mark (approve.c). */
static void sent(tg_mcp_server *s)
{
	if (s->modern)
		return;
	if (s->live) {
		/* over HTTP: into the request's SSE stream (http_live.c) */
		s->live(s->live_ctx, &s->out);
		s->progress_mark = 0;
		return;
	}
	if (!s->io_rd)
		return;
	if (tg_mcp_write_out(s) < 0)
		tg_mcp_log_error("notifications", NULL);
	s->progress_mark = 0;
}

void tg_mcp_log(tg_mcp_server *s, const char *level, const char *logger, const char *message)
{
	char text[1024];
	int l = level_of(level);

	if (!s->log_level || l < 0 || l + 1 < s->log_level)
		return;
	snprintf(text, sizeof(text), "%s", message ? message : "");
	tg_mcp_sanitize(text);
	if (tg_mcp_queue(s, json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "jsonrpc", "2.0", "method",
				      "notifications/message", "params", "level", levels[l],
				      "logger", logger ? logger : "toolgate", "data", text)) < 0)
		tg_mcp_log_error("notifications/message", NULL);
	sent(s);
}

void tg_mcp_progress_begin(tg_mcp_server *s, const json_t *params)
{
	const json_t *t = json_object_get(json_object_get(params, "_meta"), "progressToken");

	s->progress_token = json_is_string(t) || json_is_integer(t) ? t : NULL;
	s->progress_sent = 0;
	s->progress_last = 0;
	s->progress_total = 0;
	s->progress_mark = s->out.len;
}

void tg_mcp_progress(tg_mcp_server *s, unsigned step, unsigned total, const char *message)
{
	char text[512];
	json_t *p;

	if (!s->progress_token || (s->progress_sent && step <= s->progress_last))
		return; /* none asked for, or it would not grow */
	if (total > s->progress_total)
		s->progress_total = total;
	snprintf(text, sizeof(text), "%s", message ? message : "");
	tg_mcp_sanitize(text);
	p = json_pack("{s:O, s:I, s:s}", "progressToken", s->progress_token, "progress",
		      (json_int_t)step, "message", text);
	if (p && s->progress_total &&
	    json_object_set_new(p, "total", json_integer(s->progress_total)) < 0) {
		json_decref(p);
		p = NULL;
	}
	s->progress_sent = 1;
	s->progress_last = step;
	if (tg_mcp_queue(s, p ? json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method",
					  "notifications/progress", "params", p)
			      : NULL) < 0)
		tg_mcp_log_error("notifications/progress", NULL);
	sent(s); /* end took the answer out of the queue meanwhile */
}

void tg_mcp_progress_end(tg_mcp_server *s, const char *message)
{
	size_t mark = s->progress_mark;
	unsigned last = s->progress_sent ? s->progress_last + 1 : 1;
	_cleanup_free_ char *answer = NULL;
	size_t start, len;

	if (!s->progress_token)
		return;
	if (s->progress_total > last)
		last = s->progress_total;
	/* the answer is the last line queued since mark: the last step goes
	 * before it */
	len = s->out.len;
	if (len > mark) {
		for (start = len - 1; start > mark && s->out.ptr[start - 1] != '\n'; start--)
			;
		answer = strndup(s->out.ptr + start, len - start);
		if (!answer) {
			s->progress_token = NULL;
			return;
		}
		s->out.len = start;
		s->out.ptr[start] = '\0';
	}
	tg_mcp_progress(s, last, last, message);
	if (answer && tg_buf_puts(&s->out, answer) < 0)
		tg_mcp_log_error("tools/call", NULL);
	s->progress_token = NULL;
}

void tg_mcp_op_event(void *ctx, const tg_op_event *ev)
{
	tg_mcp_server *s = ctx;

	if (ev->level)
		tg_mcp_log(s, ev->level, ev->logger, ev->message);
	if (ev->total)
		tg_mcp_progress(s, ev->step, ev->total, ev->message);
}

int tg_mcp_events_wanted(const tg_mcp_server *s)
{
	return s->log_level || s->progress_token;
}
