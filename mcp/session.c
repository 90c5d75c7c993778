/*
 * mcp/session.c: the core every handler of a session stands on: the output
 * queue (one JSON document and "\n" per message), replies and JSON-RPC
 * errors (2026-07-28: resultType on every result, the cache hint of lists
 * and reads), the server's log line on stderr, the lines received while a
 * request is in flight (kept in order and served after it) and the
 * cancellation of the request in flight (notifications/cancelled). Every
 * message queued is first cut to the shapes of the session's era (era.c,
 * the only file of mcp/ it calls).
 */
#include "mcp/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- output ---------------------------------------------------------------- */

/* ---- output ------------------------------------------------------------------ */

int tg_mcp_queue(tg_mcp_server *s, json_t *msg /* stolen */)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (!msg)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	tg_mcp_era_shape(s->modern ? 0 : s->era, s->req_method, msg);
	text = tg_json_dump(msg);
	json_decref(msg);
	if (!text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r = tg_buf_puts(&s->out, text);
	if (r == 0)
		r = tg_buf_append(&s->out, "\n", 1);
	return r;
}

int tg_mcp_write_out(tg_mcp_server *s)
{
	size_t off = 0;

	while (off < s->out.len) {
		ssize_t n = write(s->io_out, s->out.ptr + off, s->out.len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			tg_buf_clear(&s->out);
			return tg_error_errno(TG_ERR_IO, errno, "write");
		}
		off += (size_t)n;
	}
	tg_buf_clear(&s->out);
	return 0;
}

/* 2026-07-28: ttlMs 0 (no reuse without asking again) and the scope */
int tg_mcp_cache_hint(const tg_mcp_server *s, json_t *result, int private_scope)
{
	if (!s->modern)
		return 0;
	if (json_object_set_new(result, "ttlMs", json_integer(0)) < 0 ||
	    json_object_set_new(result, "cacheScope",
				json_string(private_scope ? "private" : "public")) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

int tg_mcp_reply(tg_mcp_server *s, const json_t *id, json_t *result)
{
	json_t *msg;

	if (!result)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (tg_mcp_reply_dropped(s, id)) {
		json_decref(result); /* cancelled: no response (cancel.c) */
		return 0;
	}
	/* 2026-07-28: every result says what it is */
	if (s->modern && json_is_object(result) && !json_object_get(result, "resultType") &&
	    json_object_set_new(result, "resultType", json_string("complete")) < 0) {
		json_decref(result);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	msg = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			"result", result);
	return tg_mcp_queue(s, msg);
}

void tg_mcp_sanitize(char *msg)
{
	size_t i, k, n = strlen(msg);
	int valid = tg_utf8_valid(msg, n) == 0;

	/* A message cut by a fixed buffer may end inside a character. */
	for (k = 1; !valid && k <= 3 && k <= n; k++) {
		if (tg_utf8_valid(msg, n - k) == 0) {
			msg[n - k] = '\0';
			n -= k;
			valid = 1;
		}
	}

	/* Messages may quote what the peer sent (a cut name, a parser's
	 * excerpt): keep them valid UTF-8 without control characters. */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)msg[i];
		if (c < 0x20 || c == 0x7f || (!valid && c >= 0x80))
			msg[i] = '?';
	}
}

int tg_mcp_reply_error(tg_mcp_server *s, const json_t *id, int code, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (tg_mcp_reply_dropped(s, id))
		return 0; /* cancelled: no response (cancel.c) */
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	tg_mcp_sanitize(message);
	return tg_mcp_queue(s, json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
				  id ? id : json_null(), "error", "code", code, "message", message));
}

tg_buf *tg_mcp_server_output(tg_mcp_server *s)
{
	return &s->out;
}


/* ---- the server log --------------------------------------------------------- */

/* ---- initialize ---------------------------------------------------------------- */

void tg_mcp_log_error(const char *what, const char *event)
{
	const char *m = tg_error_last()->message;
	_cleanup_free_ char *safe = tg_term_scrub(m, strlen(m), TG_TERM_LINE);

	fprintf(stderr, "toolgate: serve: %s%s%s: %s\n", what, event ? " " : "", event ? event : "",
		safe ? safe : "?");
}


int tg_mcp_server_oversize(tg_mcp_server *s)
{
	return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
				  "Invalid Request: message longer than %zu bytes",
				  s->opt.max_message);
}


/* ---- lines received while a request is in flight ---------------------------- */

struct tg_mcp_deferred {
	char *line;
	size_t len;
};

int tg_mcp_deferred_push(tg_mcp_server *s, const char *line, size_t len)
{
	char *copy;

	if (s->ndeferred == s->deferred_cap) {
		size_t cap = s->deferred_cap ? 2 * s->deferred_cap : 8;
		struct tg_mcp_deferred *d = realloc(s->deferred, cap * sizeof(*d));
		if (!d)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		s->deferred = d;
		s->deferred_cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	memcpy(copy, line, len);
	copy[len] = '\0';
	s->deferred[s->ndeferred].line = copy;
	s->deferred[s->ndeferred].len = len;
	s->ndeferred++;
	return 0;
}

int tg_mcp_deferred_pop(tg_mcp_server *s, char **line, size_t *len)
{
	if (!s->ndeferred)
		return 0;
	*line = s->deferred[0].line;
	*len = s->deferred[0].len;
	memmove(s->deferred, s->deferred + 1, (s->ndeferred - 1) * sizeof(*s->deferred));
	s->ndeferred--;
	if (!s->ndeferred) {
		free(s->deferred);
		s->deferred = NULL;
		s->deferred_cap = 0;
	}
	return 1;
}


int tg_mcp_deferred_is_oversize(const char *line, size_t len)
{
	return len == TG_MCP_OVERSIZE_LEN && memcmp(line, TG_MCP_OVERSIZE_MARK, TG_MCP_OVERSIZE_LEN) == 0;
}

/* Is this message notifications/cancelled for the request in flight? */
static int cancels_inflight(tg_mcp_server *s, const json_t *msg)
{
	const json_t *params, *rid;

	if (!s->inflight_id || json_object_get(msg, "id"))
		return 0;
	if (!json_is_string(json_object_get(msg, "method")) ||
	    strcmp(json_string_value(json_object_get(msg, "method")), "notifications/cancelled") != 0)
		return 0;
	params = json_object_get(msg, "params");
	rid = json_object_get(params, "requestId");
	return rid && json_equal(rid, s->inflight_id);
}

int tg_mcp_cancel_line(tg_mcp_server *s, const json_t *msg)
{
	if (!s->cancel || !json_is_object(msg) || !cancels_inflight(s, msg))
		return 0;
	tg_cancel_fire(s->cancel);
	return 1;
}

int tg_mcp_reply_dropped(tg_mcp_server *s, const json_t *id)
{
	return id && s->inflight_id && tg_cancel_fired(s->cancel) && json_equal(id, s->inflight_id);
}

