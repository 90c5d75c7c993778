/*
 * mcp/http_guard.c: what `serve --http` bounds across its connections
 * (docs/MCP.md, "Hostile load"; the connections themselves, their
 * deadlines and evictions, are http_slots.c's):
 *  - request bodies in flight share one budget (body_budget bytes): a body
 *    past it is read and dropped, and answered 503;
 *  - the tokens of open SSE streams and sessions are checked again every
 *    TG_HTTP_REVOKE_MS (and a stream checks its own before each event): a
 *    revoked one ends its streams, cancels its sessions' calls in flight
 *    (http_cancel.c: the worker's build or run is killed) and closes its
 *    sessions.
 * It calls the worker pool (http_worker.c) for the token checks and
 * http_session.c to close sessions.
 */
#include "http_internal.h"

#include <string.h>

#define TG_HTTP_REVOKE_MS 1000

/* ---- the body budget --------------------------------------------------------- */

int http_body_reserve(tg_http *h, size_t n)
{
	int r = 0;

	pthread_mutex_lock(&h->lock);
	if (n > h->opt.body_budget || h->body_inflight > h->opt.body_budget - n)
		r = -1;
	else
		h->body_inflight += n;
	pthread_mutex_unlock(&h->lock);
	return r;
}

void http_body_release(tg_http *h, size_t n)
{
	pthread_mutex_lock(&h->lock);
	h->body_inflight -= n < h->body_inflight ? n : h->body_inflight;
	pthread_mutex_unlock(&h->lock);
}

/* ---- revoked tokens ------------------------------------------------------------ */

int http_token_valid(tg_http *h, const char *secret)
{
	json_t *row = NULL;
	int r = http_worker_call(h, json_pack("{s:s, s:s}", "op", "token", "secret", secret), &row);

	json_decref(row);
	if (r == TG_ERR_NOTFOUND)
		return 0;
	return r < 0 ? -1 : 1; /* a worker that cannot answer revokes nothing */
}

/* The distinct tokens of open streams and live sessions (under h->lock). */
static size_t open_tokens(tg_http *h, char (*out)[TG_TOKEN_LEN + 1], size_t max)
{
	size_t n = 0, i, k;

	for (i = 0; i < h->nslots + TG_HTTP_MAX_SESSIONS && n < max; i++) {
		const char *t = NULL;
		if (i < h->nslots && h->slots[i].fd >= 0 && h->slots[i].stream)
			t = h->slots[i].secret;
		else if (i >= h->nslots && h->sessions[i - h->nslots])
			t = h->sessions[i - h->nslots]->secret;
		if (!t || !t[0])
			continue;
		for (k = 0; k < n && strcmp(out[k], t) != 0; k++)
			;
		if (k == n)
			snprintf(out[n++], sizeof(*out), "%s", t);
	}
	return n;
}

/* Under h->lock: end the streams, cancel the calls in flight and close the
 * sessions of token t. */
static void revoke_token(tg_http *h, const char *t)
{
	http_session *gone[64];
	size_t n = 0, i;

	for (i = 0; i < h->nslots; i++) {
		if (h->slots[i].fd >= 0 && h->slots[i].stream && strcmp(h->slots[i].secret, t) == 0)
			h->slots[i].revoked = 1;
	}
	for (i = 0; i < TG_HTTP_MAX_SESSIONS; i++) {
		http_session *s = h->sessions[i];
		if (s && strcmp(s->secret, t) == 0) {
			if (n == TG_ARRAY_SIZE(gone))
				break; /* the rest at the next pass */
			/* the call it has in flight stops with its authority */
			http_cancel_inflight_locked(h, s);
			s->refs++;
			gone[n++] = s;
		}
	}
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
	for (i = 0; i < n; i++) {
		http_session_close(h, gone[i]);
		http_session_unref(h, gone[i]);
	}
	pthread_mutex_lock(&h->lock);
}

void http_guard_revoke_now(tg_http *h, const char *secret)
{
	char t[TG_TOKEN_LEN + 1];

	/* a copy: the stream's own secret is cleared as its slot goes */
	snprintf(t, sizeof(t), "%s", secret);
	pthread_mutex_lock(&h->lock);
	revoke_token(h, t);
	pthread_mutex_unlock(&h->lock);
	tg_cleanse(t, sizeof(t));
}

/* Called by the watcher under h->lock (released while the workers answer). */
void http_guard_revoked(tg_http *h)
{
	char (*tok)[TG_TOKEN_LEN + 1];
	uint64_t now = tg_now_ms();
	size_t n, i, max = h->nslots + TG_HTTP_MAX_SESSIONS;
	unsigned char *bad;

	if (now < h->next_revoke)
		return;
	h->next_revoke = now + TG_HTTP_REVOKE_MS;
	tok = calloc(max, sizeof(*tok));
	bad = calloc(max, 1);
	if (!tok || !bad)
		goto out;
	n = open_tokens(h, tok, max);
	pthread_mutex_unlock(&h->lock);
	for (i = 0; i < n && !*h->stop; i++)
		bad[i] = http_token_valid(h, tok[i]) == 0;
	pthread_mutex_lock(&h->lock);
	for (i = 0; i < n; i++) {
		if (bad[i])
			revoke_token(h, tok[i]);
	}
out:
	if (tok)
		tg_cleanse(tok, max * sizeof(*tok));
	free(tok);
	free(bad);
}
