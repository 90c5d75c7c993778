/*
 * mcp/http_stream.c: the SSE streams of `serve --http`: an initialize-era
 * session's GET stream (list_changed and the session's elicitation
 * requests) and a 2026-07-28 subscriptions/listen (its acknowledgement,
 * then list_changed). A stream waits on the server's condition for a
 * toolset change (the watcher, http_pool.c), an elicitation (http_elicit.c)
 * or a keep-alive tick. It ends when the server stops, when its session is
 * closed, or when its token is revoked: the watcher marks its slot within
 * about a second (http_guard.c), and before each event the stream asks a
 * worker whether its token is still valid, so no event reaches a revoked
 * token's stream once the revocation is committed.
 */
#include "http_internal.h"
#include "mhd_dl.h"

#include <string.h>
#include <time.h>

typedef struct http_stream {
	tg_http *h;
	json_t *sub_id;       /* modern: the listen request's id; NULL = legacy */
	http_session *sess;   /* legacy: its session (a reference), for elicitations */
	uint64_t seen;        /* gen_seq already reported */
	int acked;
	conn_slot *slot;
	char secret[TG_TOKEN_LEN + 1]; /* the token that opened it ("" without auth) */
} http_stream;

/* Under h->lock: the stream must end (stop, session closed, token revoked). */
static int ended(const http_stream *st)
{
	return *st->h->stop || (st->slot && st->slot->revoked) || (st->sess && st->sess->closed);
}

/* The next message for the stream (NULL: a keep-alive is due), or *end. */
static json_t *next_message(http_stream *st, int *end)
{
	tg_http *h = st->h;
	json_t *msg;
	struct timespec ts;

	pthread_mutex_lock(&h->lock);
	/* an elicitation of the session goes first (http_elicit.c) */
	if (!ended(st) && (msg = http_outbox_pop(st->sess)))
		goto out;
	if (!ended(st) && st->seen == h->gen_seq) {
		unsigned keep = h->opt.idle_timeout_s > 2 ? h->opt.idle_timeout_s / 2 : 1;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += keep;
		pthread_cond_timedwait(&h->changed, &h->lock, &ts);
	}
	msg = NULL;
	if (ended(st)) {
		*end = 1;
		goto out;
	}
	if ((msg = http_outbox_pop(st->sess)) || st->seen == h->gen_seq)
		goto out;
	st->seen = h->gen_seq;
	msg = st->sub_id ? json_pack("{s:s, s:s, s:{s:{s:O}}}", "jsonrpc", "2.0", "method",
				     "notifications/tools/list_changed", "params", "_meta",
				     TG_MCP_META_SUB, st->sub_id)
			 : json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method",
				     "notifications/tools/list_changed");
	if (!msg)
		*end = 1;
out:
	pthread_mutex_unlock(&h->lock);
	return msg;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	http_stream *st = cls;
	_cleanup_json_ json_t *msg = NULL;
	_cleanup_free_ char *text = NULL;
	int n, end = 0;

	(void)pos;
	if (!st->acked) {
		st->acked = 1;
		if (!st->sub_id)
			return snprintf(buf, max, ": toolgate list_changed stream\n\n");
		msg = json_pack("{s:s, s:s, s:{s:{s:O}, s:{s:b}}}", "jsonrpc", "2.0", "method",
				"notifications/subscriptions/acknowledged", "params", "_meta",
				TG_MCP_META_SUB, st->sub_id, "notifications", "toolsListChanged", 1);
	} else {
		msg = next_message(st, &end);
		if (end)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (!msg)
			return snprintf(buf, max, ":\n\n"); /* keep-alive */
		/* no event for a token revoked since the last check */
		if (st->secret[0] && http_token_valid(st->h, st->secret) == 0) {
			/* its session goes too, before the client sees the end */
			http_guard_revoke_now(st->h, st->secret);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
	}
	text = msg ? tg_json_dump(msg) : NULL;
	if (!text)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = snprintf(buf, max, "event: message\ndata: %s\n\n", text);
	if (n < 0 || (size_t)n >= max)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	return n;
}

static void sse_free(void *cls)
{
	http_stream *st = cls;

	json_decref(st->sub_id);
	if (st->sess) {
		pthread_mutex_lock(&st->h->lock);
		st->sess->streams--;
		pthread_mutex_unlock(&st->h->lock);
		http_session_unref(st->h, st->sess);
	}
	tg_cleanse(st->secret, sizeof(st->secret));
	free(st);
}

int http_open_stream(tg_http *h, struct MHD_Connection *c, conn_slot *slot,
		     const json_t *sub_id, http_session *sess)
{
	const char *session = sess ? sess->id : NULL;
	struct MHD_Response *resp;
	http_stream *st = calloc(1, sizeof(*st));
	enum MHD_Result ret;

	if (!st)
		return MHD_NO;
	st->h = h;
	st->sub_id = sub_id ? json_deep_copy(sub_id) : NULL;
	st->slot = slot;
	pthread_mutex_lock(&h->lock);
	st->seen = h->gen_seq;
	if (slot) {
		snprintf(st->secret, sizeof(st->secret), "%s", slot->secret);
		slot->stream = 1; /* the watcher re-checks its token */
	}
	if (sess) {
		st->sess = sess;
		sess->refs++; /* the stream's own reference */
		sess->streams++;
		pthread_cond_broadcast(&h->changed);
	}
	pthread_mutex_unlock(&h->lock);
	http_slot_exempt(h, slot, 1);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32768, sse_read, st, sse_free);
	if (!resp) {
		sse_free(st);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/event-stream");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Accel-Buffering", "no");
	if (session)
		MHD_add_response_header(resp, "Mcp-Session-Id", session);
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}
