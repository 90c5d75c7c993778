/*
 * mcp/http_liveq.c: the bounded queue of a live SSE answer (http_live.c).
 * Each line the session queued (one JSON-RPC message) becomes one
 * "event: message" with its bytes as data. The events not yet taken by the
 * stream's reader hold at most max bytes: past it a notifications/progress
 * is held back, each newer one replacing it (coalesced: the latest step
 * stands for those before it, so the progress the client sees still
 * grows), and it goes out once the reader has taken the rest; any other
 * notification is dropped and counted. The answer (must) is always queued,
 * after the progress held back. The caller serialises the calls (its
 * lock). Calls common/ (tg_buf) and jansson only.
 */
#include "http_internal.h"

#include <string.h>

#define SSE_HEAD "event: message\ndata: "
#define SSE_FRAME (sizeof(SSE_HEAD) - 1 + 2) /* the head and "\n\n" */

void http_liveq_init(http_liveq *q, size_t max)
{
	memset(q, 0, sizeof(*q));
	tg_buf_init(&q->q, 0);
	q->max = max;
}

void http_liveq_free(http_liveq *q)
{
	tg_buf_free(&q->q);
	free(q->held);
	q->held = NULL;
}

size_t http_liveq_pending(const http_liveq *q)
{
	return q->q.len - q->off;
}

static int is_progress(const char *line, size_t n)
{
	_cleanup_json_ json_t *m = json_loadb(line, n, 0, NULL);
	const char *method = json_string_value(json_object_get(m, "method"));

	return method && strcmp(method, "notifications/progress") == 0;
}

static int append_event(http_liveq *q, const char *line, size_t n)
{
	if (q->off) {
		memmove(q->q.ptr, q->q.ptr + q->off, q->q.len - q->off);
		q->q.len -= q->off;
		q->q.ptr[q->q.len] = '\0';
		q->off = 0;
	}
	if (tg_buf_puts(&q->q, SSE_HEAD) < 0 || tg_buf_append(&q->q, line, n) < 0 ||
	    tg_buf_puts(&q->q, "\n\n") < 0)
		return -1;
	return 0;
}

void http_liveq_flush(http_liveq *q)
{
	if (!q->held)
		return;
	if (append_event(q, q->held, q->held_len) < 0) {
		tg_error_clear(); /* out of memory: that step is lost, later ones are not */
		q->dropped++;
	}
	free(q->held);
	q->held = NULL;
}

void http_liveq_push(http_liveq *q, const char *line, size_t n, int must)
{
	size_t need = n + SSE_FRAME + (q->held ? q->held_len + SSE_FRAME : 0);
	int progress = !must && is_progress(line, n);

	if (!must && http_liveq_pending(q) + need > q->max) {
		char *copy = progress ? strndup(line, n) : NULL;
		if (copy) {
			free(q->held); /* coalesced into the newer step */
			q->held = copy;
			q->held_len = n;
		} else {
			q->dropped++;
		}
		return;
	}
	if (q->held && progress) {
		free(q->held); /* this newer step replaces the one held back */
		q->held = NULL;
	}
	http_liveq_flush(q);
	if (append_event(q, line, n) < 0) {
		tg_error_clear();
		q->dropped++;
	}
}

size_t http_liveq_take(http_liveq *q, char *buf, size_t max)
{
	size_t n = http_liveq_pending(q);

	if (!n)
		return 0;
	if (n > max)
		n = max;
	memcpy(buf, q->q.ptr + q->off, n);
	q->off += n;
	if (q->off == q->q.len) {
		tg_buf_clear(&q->q);
		q->off = 0;
		http_liveq_flush(q); /* the reader caught up: the latest step */
	}
	return n;
}
