/*
 * mcp/http_cancel.c: notifications/cancelled over HTTP. A session's
 * requests are answered one at a time under its lock, and the registry work
 * of a tools/call runs in a worker process (http_worker.c), so the stdio
 * watcher of cancel.c has no place here. Instead: while a tools/call of a
 * session is answered, the session records its id (inflight, under h->lock)
 * and the connection thread marks itself as serving that session
 * (http_tl_session). A notifications/cancelled POSTed to the same session —
 * found only under the same principal: another principal's POST never sees
 * the session (404) — whose requestId is the one in flight is handled at once,
 * without the session's lock: it marks the request cancelled, fires the
 * session's cancellation (so that no response is sent, tg_mcp_reply_dropped)
 * and fires the cancellation of the worker serving it. Each worker has one
 * tg_cancel made before the fork, so the eventfd is shared by the server and
 * that worker: the server fires it, the worker's registry sees it readable
 * (tg_cancel_fired polls it) and its sandbox kills the build or run (reason
 * "cancelled", audited as the stdio path does); the server drains it when the
 * worker's answer is in, under h->lock, so a late cancel never reaches the
 * next request that worker serves. A cancel that comes before the request
 * reached a worker is kept in the session and fired as the worker is taken.
 * A revoked token's sessions (http_guard.c) have their call in flight
 * cancelled the same way.
 */
#include "http_internal.h"

#include <string.h>

_Thread_local http_session *http_tl_session;

int http_cancel_begin(tg_http *h, http_session *s, const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *id = json_object_get(msg, "id");
	json_t *copy;

	if (!method || strcmp(method, "tools/call") != 0 || !id || json_is_null(id))
		return 0;
	if (!s->srv->cancel && tg_cancel_new(&s->srv->cancel) < 0)
		return -1;
	if (!(copy = json_deep_copy(id)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	tg_cancel_reset(s->srv->cancel);
	pthread_mutex_lock(&h->lock);
	json_decref(s->inflight);
	s->inflight = copy;
	s->inflight_cancelled = 0;
	pthread_mutex_unlock(&h->lock);
	s->srv->inflight_id = copy;
	http_tl_session = s;
	return 1;
}

void http_cancel_end(tg_http *h, http_session *s)
{
	json_t *id;

	http_tl_session = NULL;
	pthread_mutex_lock(&h->lock);
	id = s->inflight;
	s->inflight = NULL;
	if (s->inflight_cancelled)
		s->srv->cancelled++;
	s->inflight_cancelled = 0;
	pthread_mutex_unlock(&h->lock);
	s->srv->inflight_id = NULL;
	tg_cancel_reset(s->srv->cancel);
	json_decref(id);
}

void http_cancel_inflight_locked(tg_http *h, http_session *s)
{
	unsigned i;

	if (!s->inflight)
		return;
	s->inflight_cancelled = 1;
	if (s->srv->cancel)
		tg_cancel_fire(s->srv->cancel);
	for (i = 0; i < h->nworkers; i++)
		if (h->wowner[i] == s)
			tg_cancel_fire(h->wcancel[i]);
}

int http_cancel_request(tg_http *h, http_session *s, const json_t *msg)
{
	const json_t *rid = json_object_get(json_object_get(msg, "params"), "requestId");
	int hit = 0;

	if (!rid)
		return 0;
	pthread_mutex_lock(&h->lock);
	if (s->inflight && json_equal(rid, s->inflight)) {
		hit = 1;
		http_cancel_inflight_locked(h, s);
	}
	pthread_mutex_unlock(&h->lock);
	return hit;
}

void http_cancel_worker_take(tg_http *h, unsigned i)
{
	http_session *s = http_tl_session;

	pthread_mutex_lock(&h->lock);
	h->wowner[i] = s;
	if (s && s->inflight_cancelled)
		tg_cancel_fire(h->wcancel[i]);
	pthread_mutex_unlock(&h->lock);
}

void http_cancel_worker_done(tg_http *h, unsigned i)
{
	pthread_mutex_lock(&h->lock);
	h->wowner[i] = NULL;
	tg_cancel_reset(h->wcancel[i]);
	pthread_mutex_unlock(&h->lock);
}
