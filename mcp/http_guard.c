/*
 * mcp/http_guard.c: the connections of `serve --http` before and after a
 * token (docs/MCP.md, "Hostile load"). Each live connection has a slot:
 *  - a connection none of whose requests has shown a valid token yet must
 *    bring its whole request within header_timeout_ms of being accepted
 *    (or of its previous answer); one that authenticated gets
 *    request_timeout_ms, which is also how long it may idle between
 *    requests. The watcher (http_pool.c) calls http_guard_deadlines.
 *  - one peer address holds at most unauth_per_ip connections that have
 *    not shown a valid token: past it a new connection evicts that
 *    address's oldest one still waiting for its headers (a client with a
 *    token that shares an address with idle sockets still gets in), or is
 *    itself closed when there is none;
 *  - unauthenticated connections hold at most max_connections minus the
 *    reserve (auth_reserve_pct of them), and one slot always stays free:
 *    a new connection past either evicts a connection still waiting for
 *    its first headers, the oldest of the peer address holding the most
 *    unauthenticated connections, so a client with a token gets in and
 *    idle or slow sockets from elsewhere cannot hold the server;
 *  - request bodies in flight share one budget (body_budget bytes): a body
 *    past it is read and dropped, and answered 503;
 *  - the tokens of open SSE streams and sessions are checked again every
 *    TG_HTTP_REVOKE_MS (and a stream checks its own before each event): a
 *    revoked one ends its streams and closes its sessions.
 * It calls the worker pool (http_worker.c) for the token checks and
 * http.c to close sessions.
 */
#include "http_internal.h"

#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define TG_HTTP_REVOKE_MS 1000

static void cut(conn_slot *s)
{
	/* the connection thread sees end of input and closes */
	shutdown(s->fd, SHUT_RDWR);
	s->closing = 1;
}

static int peer_cmp(const void *a, const void *b)
{
	const conn_slot *x = *(conn_slot *const *)a, *y = *(conn_slot *const *)b;

	if (x->peer_len != y->peer_len)
		return x->peer_len < y->peer_len ? -1 : 1;
	return memcmp(x->peer, y->peer, x->peer_len);
}

static int same_peer(const conn_slot *x, const conn_slot *y)
{
	return x->peer_len == y->peer_len && memcmp(x->peer, y->peer, x->peer_len) == 0;
}

/* Under h->lock: a new connection (keep) past the limit of unauthenticated
 * connections per address cuts the oldest connection of its address still
 * waiting for its headers, or, when every one of them is further along,
 * itself. 1 if keep was cut. Connections that showed a valid token do not
 * count: every local client of a shared host comes from 127.0.0.1. */
static int per_address(tg_http *h, conn_slot *keep)
{
	unsigned i, same = 0;
	conn_slot *old = NULL;

	if (!h->opt.unauth_per_ip)
		return 0;
	for (i = 0; i < h->nslots; i++) {
		conn_slot *x = &h->slots[i];
		if (x->fd < 0 || x->closing || x->authed || !same_peer(x, keep))
			continue;
		same++;
		if (x != keep && !x->headers && (!old || x->opened < old->opened))
			old = x;
	}
	if (same <= h->opt.unauth_per_ip)
		return 0;
	cut(old ? old : keep);
	return !old;
}

/* Under h->lock: past the unauthenticated share, or with no slot left
 * free, cut a connection still waiting for its first headers: one of the
 * peer address that holds the most unauthenticated connections (a client
 * alone on its address is the last to go), the oldest of them. */
static void evict(tg_http *h, conn_slot *keep)
{
	unsigned n = h->opt.max_connections;
	unsigned cap = n - n * h->opt.auth_reserve_pct / 100;
	unsigned i, j, live = 0, unauth = 0, best_n = 0;
	conn_slot **u, *old = NULL;

	if (per_address(h, keep))
		return;
	if (cap < 1)
		cap = 1;
	u = calloc(h->nslots, sizeof(*u));
	if (!u)
		return;
	for (i = 0; i < h->nslots; i++) {
		conn_slot *x = &h->slots[i];
		if (x->fd < 0 || x->closing)
			continue;
		live++;
		if (!x->authed)
			u[unauth++] = x;
	}
	if (unauth > cap || live >= n) {
		qsort(u, unauth, sizeof(*u), peer_cmp);
		for (i = 0; i < unauth; i = j) {
			conn_slot *o = NULL;
			for (j = i; j < unauth && same_peer(u[i], u[j]); j++) {
				if (u[j] != keep && !u[j]->headers && (!o || u[j]->opened < o->opened))
					o = u[j];
			}
			if (o && (j - i > best_n || (j - i == best_n && o->opened < old->opened))) {
				best_n = j - i;
				old = o;
			}
		}
		if (old)
			cut(old);
	}
	free(u);
}

conn_slot *http_slot_add(tg_http *h, int fd, const struct sockaddr *sa)
{
	conn_slot *s = NULL;
	unsigned i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < h->nslots; i++) {
		if (h->slots[i].fd < 0) {
			s = &h->slots[i];
			memset(s, 0, sizeof(*s));
			s->fd = fd;
			s->opened = s->since = tg_now_ms();
			if (sa && sa->sa_family == AF_INET) {
				memcpy(s->peer, &((const struct sockaddr_in *)sa)->sin_addr, 4);
				s->peer_len = 4;
			} else if (sa && sa->sa_family == AF_INET6) {
				memcpy(s->peer, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
				s->peer_len = 16;
			}
			break;
		}
	}
	if (s)
		evict(h, s);
	pthread_mutex_unlock(&h->lock);
	return s;
}

void http_slot_free(tg_http *h, conn_slot *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&h->lock);
	tg_cleanse(s->secret, sizeof(s->secret));
	s->fd = -1;
	pthread_mutex_unlock(&h->lock);
}

/* checking 1: the headers are in and the token is being checked (the
 * server's time, not timed); then 0 with the outcome, and the clock of the
 * body starts */
void http_slot_headers(tg_http *h, conn_slot *s, int checking, const char *secret)
{
	if (!s)
		return;
	pthread_mutex_lock(&h->lock);
	s->headers = 1;
	s->exempt = checking;
	if (!checking) {
		s->since = tg_now_ms();
		s->authed = secret != NULL;
		if (secret)
			snprintf(s->secret, sizeof(s->secret), "%s", secret);
	}
	pthread_mutex_unlock(&h->lock);
}

/* exempt 0 starts the clock of the next request on this connection */
void http_slot_exempt(tg_http *h, conn_slot *s, int exempt)
{
	if (!s)
		return;
	pthread_mutex_lock(&h->lock);
	s->exempt = exempt;
	if (!exempt) {
		s->since = tg_now_ms();
		s->headers = 0;
		s->stream = 0;
	}
	pthread_mutex_unlock(&h->lock);
}

void http_guard_deadlines(tg_http *h, uint64_t now)
{
	unsigned i;

	for (i = 0; i < h->nslots; i++) {
		conn_slot *s = &h->slots[i];
		uint64_t limit = s->authed ? h->opt.request_timeout_ms : h->opt.header_timeout_ms;
		if (s->fd >= 0 && !s->exempt && !s->closing && now - s->since > limit)
			cut(s);
	}
}

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

/* Under h->lock: end the streams and close the sessions of token t. */
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
