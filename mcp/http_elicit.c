/*
 * mcp/http_elicit.c: elicitation in an initialize-era HTTP session
 * (docs/MCP.md, "Per-call approvals"). A request the server sends its
 * client (elicitation/create about a call that needs a person) goes out on
 * the session's GET stream (the SDK opens it after notifications/
 * initialized): it is put in the session's outbox and the stream's reader
 * (http.c, sse_read) takes it. The client's response comes back as a POST
 * with the session id, which http.c hands here without taking the
 * session's lock (the tools/call that asked holds it while it waits). One
 * request at a time per session; the wait ends with the response, the
 * timeout or the server stopping. A session with no stream open within a
 * short grace is TG_ERR_UNAVAILABLE: the call waits on the queue.
 */
#include "http_internal.h"

#include <string.h>
#include <time.h>

#define STREAM_GRACE_MS 3000

static void deadline(struct timespec *ts, uint64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int http_exchange(void *ctx, json_t *req, json_t **resp, uint64_t timeout_ms)
{
	http_session *s = ctx;
	tg_http *h = s->h;
	const char *rid = json_string_value(json_object_get(req, "id"));
	uint64_t start = tg_now_ms(), until = start + timeout_ms;
	uint64_t grace = start + (timeout_ms < STREAM_GRACE_MS ? timeout_ms : STREAM_GRACE_MS);
	struct timespec ts;

	*resp = NULL;
	if (!rid)
		return tg_error_set(TG_ERR_INTERNAL, "an elicitation without an id");
	pthread_mutex_lock(&h->lock);
	while (!s->streams && !*h->stop && tg_now_ms() < grace) {
		deadline(&ts, 100);
		pthread_cond_timedwait(&h->changed, &h->lock, &ts);
	}
	if (!s->streams || *h->stop) {
		pthread_mutex_unlock(&h->lock);
		return tg_error_set(TG_ERR_UNAVAILABLE, "the session has no open stream");
	}
	if (!s->outbox && !(s->outbox = json_array())) {
		pthread_mutex_unlock(&h->lock);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	json_decref(s->answer);
	s->answer = NULL;
	snprintf(s->waiting, sizeof(s->waiting), "%.47s", rid);
	json_array_append(s->outbox, req);
	pthread_cond_broadcast(&h->changed);
	while (!s->answer && !*h->stop && tg_now_ms() < until) {
		uint64_t left = until - tg_now_ms();
		deadline(&ts, left > 500 ? 500 : left);
		pthread_cond_timedwait(&h->changed, &h->lock, &ts);
	}
	*resp = s->answer;
	s->answer = NULL;
	s->waiting[0] = '\0';
	/* not sent yet (the stream went away): it must not go out later */
	json_array_clear(s->outbox);
	pthread_mutex_unlock(&h->lock);
	return *resp ? 1 : 0;
}

void http_elicit_answer(tg_http *h, http_session *s, const json_t *msg)
{
	const json_t *id = json_object_get(msg, "id");

	pthread_mutex_lock(&h->lock);
	/* only the response awaited counts; any other is dropped */
	if (json_is_string(id) && s->waiting[0] && !s->answer &&
	    strcmp(json_string_value(id), s->waiting) == 0) {
		s->answer = json_deep_copy(msg);
		pthread_cond_broadcast(&h->changed);
	}
	pthread_mutex_unlock(&h->lock);
}

/* Called with h->lock held. */
json_t *http_outbox_pop(http_session *s)
{
	json_t *m;

	if (!s || !json_array_size(s->outbox))
		return NULL;
	m = json_incref(json_array_get(s->outbox, 0));
	json_array_remove(s->outbox, 0);
	return m;
}
