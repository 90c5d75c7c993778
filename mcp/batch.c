/*
 * mcp/batch.c: JSON-RPC batches, part of MCP in the 2025-03-26 era only
 * (added there, removed in 2025-06-18). A batch is refused whole, with one
 * -32600 error and id null, when the session did not negotiate 2025-03-26,
 * when it is empty, or when it holds more than TG_MCP_BATCH_MAX elements.
 * Otherwise each element is served in order by the single-message handler
 * handed in (server.c's), so it is checked, authorized, counted against the
 * budgets and audited exactly as if it had come alone; initialize, nested
 * batches and 2026-07-28 requests (an era without batches) are refused per
 * element, and so is every request after the
 * responses gathered so far passed TG_MCP_BATCH_ANSWERS times the line cap
 * (16 MiB by default: 64 calls of large outputs would otherwise pass the
 * output queue's cap). The responses are gathered into
 * one array queued after the notifications the elements queued (logging,
 * progress); a batch of notifications and responses only answers nothing.
 * On stdio a notification may be written while an element runs (notify.c),
 * so each element starts with an empty queue and its responses are taken
 * out of the queue before the next one. It calls session.c and modern.c
 * (which requests are of the 2026-07-28 era).
 */
#include "mcp/internal.h"

#include <string.h>

/* Move the responses queued from mark on into answers, in order, adding
 * their sizes to *bytes, and keep the other lines (notifications) where
 * they were. */
static int take_responses(tg_mcp_server *s, size_t mark, json_t *answers, size_t *bytes)
{
	_cleanup_free_ char *tail = NULL;
	size_t n = s->out.len - mark, i = 0;
	int r = 0;

	if (!n)
		return 0;
	tail = malloc(n);
	if (!tail)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	memcpy(tail, s->out.ptr + mark, n);
	s->out.len = mark;
	while (i < n && r == 0) {
		const char *nl = memchr(tail + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - tail) : n;
		json_t *m = json_loadb(tail + i, end - i, 0, NULL);

		if (m && !json_object_get(m, "method") && json_object_get(m, "id")) {
			*bytes += end - i;
			if (json_array_append_new(answers, m) < 0)
				r = tg_error_set(TG_ERR_NOMEM, "out of memory");
		} else {
			json_decref(m);
			if (tg_buf_append(&s->out, tail + i, end - i) < 0 ||
			    tg_buf_append(&s->out, "\n", 1) < 0)
				r = tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
		i = end + 1;
	}
	return r;
}

/* One element: refused here (initialize, a nested batch, a 2026-07-28
 * request, a request once the answers so far passed their cap) or served
 * by one. */
static int element(tg_mcp_server *s, const json_t *m, tg_mcp_msg_handler one, size_t bytes,
		   size_t cap)
{
	const json_t *id = json_object_get(m, "id");
	const char *method = json_string_value(json_object_get(m, "method"));

	if (method && bytes >= cap && (json_is_string(id) || json_is_integer(id)))
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: the batch's answers passed %zu bytes: "
					  "this request was not served (send it alone or in a "
					  "smaller batch)",
					  cap);
	if (json_is_array(m))
		return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: a batch cannot hold a batch");
	/* 2026-07-28 has no batches (server/discover belongs to every era) */
	if (method && (json_is_string(id) || json_is_integer(id)) &&
	    strcmp(method, "server/discover") != 0 &&
	    tg_mcp_is_modern(method, json_object_get(m, "params")))
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: a %s request cannot be part of a batch",
					  TG_MCP_PROTOCOL_MODERN);
	if (method && strcmp(method, "initialize") == 0 && id)
		return tg_mcp_reply_error(s, json_is_string(id) || json_is_integer(id) ? id : NULL,
					  TG_RPC_INVALID_REQUEST,
					  "Invalid Request: initialize must not be part of a batch");
	return one(s, m);
}

int tg_mcp_batch(tg_mcp_server *s, const json_t *batch, tg_mcp_msg_handler one)
{
	_cleanup_json_ json_t *answers = NULL;
	size_t n = json_array_size(batch), i, mark, bytes = 0;
	size_t cap = TG_MCP_BATCH_ANSWERS * s->opt.max_message;
	int r = 0;

	if (!s->initialized || s->era != TG_MCP_ERA_2025_03)
		return tg_mcp_reply_error(
			s, NULL, TG_RPC_INVALID_REQUEST,
			"Invalid Request: JSON-RPC batches are part of protocol version %s only "
			"(this session: %s)",
			TG_MCP_PROTOCOL_2025_03, s->initialized ? s->protocol : "not initialized");
	if (n == 0)
		return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: an empty batch");
	if (n > TG_MCP_BATCH_MAX)
		return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: a batch holds at most %d messages (%zu "
					  "sent)",
					  TG_MCP_BATCH_MAX, n);
	answers = json_array();
	if (!answers)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < n && r == 0 && !s->ended; i++) {
		/* stdio: what earlier elements queued goes first, so that a
		 * notification written while this one runs comes after it */
		if (s->io_rd && s->out.len && (r = tg_mcp_write_out(s)) < 0)
			break;
		mark = s->out.len;
		r = element(s, json_array_get(batch, i), one, bytes, cap);
		if (r == 0)
			r = take_responses(s, s->out.len < mark ? 0 : mark, answers, &bytes);
	}
	if (r < 0 || json_array_size(answers) == 0)
		return r;
	s->req_method = NULL; /* the array is cut element by element already */
	return tg_mcp_queue(s, json_incref(answers));
}
