/*
 * mcp/http_session.c: the initialize-era sessions of `serve --http` in the
 * server's table: find a live one of a principal (a reference taken), let
 * a reference go (the last one closes the session: its audit entry, then
 * its memory), and close one (out of the table; its streams see it closed
 * and end). Used by http.c (requests, DELETE, stop), http_stream.c and
 * http_guard.c (a revoked token's sessions). Calls the session layer
 * (tg_mcp_server_close, tg_mcp_server_free) only.
 */
#include "http_internal.h"

#include <string.h>

void http_session_unref(tg_http *h, http_session *s)
{
	int last;

	pthread_mutex_lock(&h->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (!last)
		return;
	pthread_mutex_lock(&s->lock);
	if (tg_mcp_server_close(s->srv) < 0)
		tg_mcp_log_error("audit", NULL);
	pthread_mutex_unlock(&s->lock);
	tg_mcp_server_free(s->srv);
	json_decref(s->patterns);
	json_decref(s->inflight);
	json_decref(s->outbox);
	json_decref(s->answer);
	tg_cleanse(s->secret, sizeof(s->secret));
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Find a live session of this principal (a reference is taken). */
http_session *http_session_find(tg_http *h, const char *id, const char *principal)
{
	http_session *s = NULL;
	size_t i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < TG_HTTP_MAX_SESSIONS; i++) {
		http_session *x = h->sessions[i];
		if (x && !x->closed && strcmp(x->id, id) == 0 &&
		    strcmp(x->principal, principal) == 0) {
			s = x;
			s->refs++;
			break;
		}
	}
	pthread_mutex_unlock(&h->lock);
	return s;
}

void http_session_close(tg_http *h, http_session *s)
{
	size_t i;
	int found = 0;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < TG_HTTP_MAX_SESSIONS; i++) {
		if (h->sessions[i] == s) {
			h->sessions[i] = NULL;
			s->closed = 1;
			found = 1;
		}
	}
	pthread_mutex_unlock(&h->lock);
	if (found)
		http_session_unref(h, s); /* the table's reference */
}
