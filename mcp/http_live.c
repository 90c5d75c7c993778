/*
 * mcp/http_live.c: a tools/call's notifications live over Streamable HTTP.
 * When an initialize-era session's tools/call may send notifications (the
 * session set a log level, or the request carries _meta.progressToken) and
 * the client accepts text/event-stream, the call runs on a thread of its
 * own (it takes the session's lock, as the connection thread would), and
 * the session's live hook (notify.c) hands this request each
 * notifications/message and notifications/progress as soon as it is
 * queued. The first one turns the POST's answer into an SSE stream (200,
 * text/event-stream): its reader (libmicrohttpd's content callback, on the
 * connection thread) writes each event as soon as it is queued, then the
 * answer, then ends the stream. A call that ends before any notification
 * is answered as any other request (http.c, http_respond: its status and
 * body unchanged).
 * Bounded: the events not yet written to the client hold at most
 * TG_HTTP_LIVE_MAX bytes (http_liveq.c: past it a progress is coalesced
 * into the latest, a log message dropped; the answer always queued). The run never
 * waits for the client: a client that stops reading costs at most that
 * much, until libmicrohttpd's idle timeout closes the connection. The
 * stream ends at once, whatever is queued, when its token is revoked
 * (http_guard.c marks its slot, as for a GET stream), its session is
 * closed, or the server stops; the run then goes on to its end in the
 * worker and its answer goes nowhere. A notifications/cancelled works as
 * for any tools/call (http_cancel.c, called from the run's thread).
 * Calls http_cancel.c, http_session.c and the session layer; http.c
 * answers a run that ended before any notification (http_respond).
 */
#include "http_internal.h"
#include "mhd_dl.h"

#include <string.h>
#include <time.h>

#define LIVE_WAIT_MS 100 /* the reader looks at the stream's end this often */

typedef struct http_live {
	tg_http *h;
	http_session *s;  /* a reference of its own, let go when the live ends */
	conn_slot *slot;
	tg_buf body;      /* the request's body, taken from it */
	json_t *msg;      /* the request, parsed (http_cancel.c) */
	pthread_t thread;
	pthread_mutex_t lock; /* guards the rest; taken before h->lock */
	pthread_cond_t cv;
	http_liveq q;     /* the events not yet written (http_liveq.c) */
	int streaming;    /* a notification came: the answer is an SSE stream */
	int done;         /* the run ended: its answer is in q, or in final */
	tg_buf final;     /* done before streaming: the session's whole output */
	http_outcome oc;
} http_live;

int http_live_wanted(struct MHD_Connection *c, http_session *s, const json_t *msg)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	const json_t *params = json_object_get(msg, "params");
	const json_t *t = json_object_get(json_object_get(params, "_meta"), "progressToken");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *id = json_object_get(msg, "id");

	if (!accept || !strstr(accept, "text/event-stream") || !method ||
	    strcmp(method, "tools/call") != 0 || !id || json_is_null(id) || s->srv->modern)
		return 0;
	return s->srv->log_level || json_is_string(t) || json_is_integer(t);
}

/* The session's live hook (notify.c), and the run's last output (last: its
 * final line is the answer). The lines are moved out of the session's
 * queue. */
static void push(http_live *l, tg_buf *out, int last)
{
	size_t i = 0, end, stop = out->len;

	while (stop && out->ptr[stop - 1] == '\n')
		stop--;
	pthread_mutex_lock(&l->lock);
	while (i < stop) {
		const char *nl = memchr(out->ptr + i, '\n', stop - i);
		end = nl ? (size_t)(nl - out->ptr) : stop;
		if (end > i)
			http_liveq_push(&l->q, out->ptr + i, end - i, last && end == stop);
		i = end + 1;
	}
	if (last) {
		http_liveq_flush(&l->q);
		l->done = 1;
	}
	if (stop)
		l->streaming = 1;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->lock);
	tg_buf_clear(out);
}

static void live_hook(void *ctx, tg_buf *out)
{
	push(ctx, out, 0);
}

/* The run's end: streaming, its answer goes to the stream; else the whole
 * output is kept for an ordinary answer. */
static void finish(http_live *l, tg_buf *out)
{
	pthread_mutex_lock(&l->lock);
	if (l->streaming) {
		pthread_mutex_unlock(&l->lock);
		push(l, out, 1);
		return;
	}
	l->final = *out;
	out->ptr = NULL;
	out->len = out->cap = 0;
	l->done = 1;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->lock);
}

/* The run's thread: what http.c's handle_post does under the session's
 * lock, with the live hook set for the length of the request. */
static void *run(void *arg)
{
	http_live *l = arg;
	http_session *s = l->s;
	tg_mcp_server *srv = s->srv;
	int r, ended;

	pthread_mutex_lock(&s->lock);
	srv->live = live_hook;
	srv->live_ctx = l;
	srv->forbidden = 0;
	srv->bad_meta = 0;
	r = http_cancel_begin(l->h, s, l->msg);
	l->oc.failed = r < 0 || tg_mcp_server_handle(srv, l->body.ptr ? l->body.ptr : "",
						     l->body.len) < 0;
	if (r > 0)
		http_cancel_end(l->h, s);
	srv->live = NULL;
	srv->live_ctx = NULL;
	l->oc.forbidden = srv->forbidden;
	l->oc.bad_meta = srv->bad_meta;
	ended = tg_mcp_server_ended(srv);
	finish(l, tg_mcp_server_output(srv));
	pthread_mutex_unlock(&s->lock);
	/* refused on and on after a budget was spent (refusals.c) */
	if (ended)
		http_session_close(l->h, s);
	return NULL;
}

/* After the run's thread is joined. */
static void live_free(http_live *l)
{
	http_session_unref(l->h, l->s);
	json_decref(l->msg);
	tg_buf_free(&l->body);
	http_liveq_free(&l->q);
	tg_buf_free(&l->final);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* libmicrohttpd's free callback: the stream is over (written, or the
 * client went); the run's thread is waited for, as the connection thread
 * waits for any request's run. */
static void live_end(void *cls)
{
	http_live *l = cls;

	pthread_join(l->thread, NULL);
	if (l->q.dropped) {
		tg_error_set(TG_ERR_LIMIT, "%llu notifications dropped past the stream's %zu bytes",
			     (unsigned long long)l->q.dropped, TG_HTTP_LIVE_MAX);
		tg_mcp_log_error("notifications/message", NULL);
	}
	live_free(l);
}

/* Under l->lock: the stream must end now (a session closed after the run
 * ended, its budget spent, still gets the answer). */
static int cut_off(http_live *l)
{
	int cut;

	pthread_mutex_lock(&l->h->lock);
	cut = *l->h->stop || (l->slot && l->slot->revoked) || (l->s->closed && !l->done);
	pthread_mutex_unlock(&l->h->lock);
	return cut;
}

static ssize_t live_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	http_live *l = cls;
	unsigned keep = l->h->opt.idle_timeout_s > 2 ? l->h->opt.idle_timeout_s / 2 : 1;
	uint64_t until = tg_now_ms() + (uint64_t)keep * 1000;
	ssize_t r;

	(void)pos;
	pthread_mutex_lock(&l->lock);
	for (;;) {
		struct timespec ts;
		if (cut_off(l)) {
			r = MHD_CONTENT_READER_END_OF_STREAM;
			break;
		}
		if ((r = (ssize_t)http_liveq_take(&l->q, buf, max)) > 0)
			break;
		if (l->done) {
			r = MHD_CONTENT_READER_END_OF_STREAM;
			break;
		}
		if (tg_now_ms() >= until) {
			r = snprintf(buf, max, ":\n\n"); /* keep-alive */
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += LIVE_WAIT_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&l->cv, &l->lock, &ts);
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

int http_live_answer(tg_http *h, struct MHD_Connection *c, conn_slot *slot, http_session *s,
		     tg_buf *body, const json_t *msg, tg_buf *out, http_outcome *oc)
{
	struct MHD_Response *resp;
	http_live *l = calloc(1, sizeof(*l));
	int streaming;

	if (!l)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	l->h = h;
	l->s = s;
	pthread_mutex_lock(&h->lock);
	s->refs++; /* the live's own: the stream may outlive the request */
	pthread_mutex_unlock(&h->lock);
	l->slot = slot;
	l->body = *body; /* taken: the request may be gone before the run ends */
	body->ptr = NULL;
	body->len = body->cap = 0;
	l->msg = json_incref((json_t *)msg);
	http_liveq_init(&l->q, TG_HTTP_LIVE_MAX);
	tg_buf_init(&l->final, 0);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cv, NULL);
	if (pthread_create(&l->thread, NULL, run, l) != 0) {
		live_free(l);
		return tg_error_set(TG_ERR_UNAVAILABLE, "cannot start a thread for the call");
	}
	pthread_mutex_lock(&l->lock);
	while (!l->streaming && !l->done)
		pthread_cond_wait(&l->cv, &l->lock);
	streaming = l->streaming;
	pthread_mutex_unlock(&l->lock);
	if (!streaming) {
		/* no notification came: the ordinary answer (http.c) */
		pthread_join(l->thread, NULL);
		*oc = l->oc;
		tg_buf_free(out);
		*out = l->final;
		l->final.ptr = NULL;
		l->final.len = l->final.cap = 0;
		live_free(l);
		return 0;
	}
	if (slot) {
		pthread_mutex_lock(&h->lock);
		slot->stream = 1; /* the watcher re-checks its token (http_guard.c) */
		pthread_mutex_unlock(&h->lock);
	}
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32768, live_read, l, live_end);
	if (!resp) {
		live_end(l);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	MHD_add_response_header(resp, "Content-Type", "text/event-stream");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Accel-Buffering", "no");
	MHD_add_response_header(resp, "Mcp-Session-Id", s->id);
	oc->queued = MHD_queue_response(c, MHD_HTTP_OK, resp) == MHD_YES;
	MHD_destroy_response(resp);
	return 1;
}
