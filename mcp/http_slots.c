/*
 * mcp/http_slots.c: the connections of `serve --http` before and after a
 * token (docs/MCP.md, "Hostile load"). Each live connection has a slot:
 *  - a connection none of whose requests has shown a valid token yet must
 *    bring its whole request within header_timeout_ms of being accepted
 *    (or of its previous answer); one that authenticated gets
 *    request_timeout_ms, which is also how long it may idle between
 *    requests. The watcher (http_pool.c) calls http_slot_deadlines.
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
 *  - "still waiting for its headers" is asked of the socket too: a
 *    connection whose whole header block already sits unread in its
 *    receive queue (its thread has not run yet on a loaded host) is never
 *    the one evicted while another candidate is left, so a fresh client
 *    that sent its request at once is not lost to sockets that sent less;
 *    among the rest, one that sent part of a request and then nothing for
 *    TG_HTTP_STALL_MS (TCP_INFO) goes before the oldest.
 * It calls only common/ (the clock) and the socket API; http.c calls it
 * from libmicrohttpd's callbacks, http_pool.c's watcher for the deadlines.
 */
#include "http_internal.h"

#include <stddef.h>
#include <string.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

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

/* Whether x's whole header block sits unread in its receive queue: the
 * request is complete and only waits for its thread (sticky: bytes only
 * move from the queue to libmicrohttpd's buffer). A block longer than the
 * peek, or one partly read already, is not seen and counts as waiting. */
static int queued(conn_slot *x)
{
	char buf[TG_HTTP_PEEK];
	ssize_t n;

	if (!x->queued) {
		n = recv(x->fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
		x->queued = n >= 4 && memmem(buf, (size_t)n, "\r\n\r\n", 4) != NULL;
	}
	return x->queued;
}

/* How good a victim x is, 0 the best (TCP_INFO: what the kernel received
 * on it, read by libmicrohttpd or not, and when the last byte came):
 *  0: it sent part of a request and then nothing for TG_HTTP_STALL_MS (a
 *     slow sender between its bytes);
 *  1: any other (nothing sent yet, or a byte a moment ago: a client about
 *     to write or whose request is being read; nothing tells them apart
 *     from an attacker's fresh socket).
 * Asked once per eviction (pass). */
static int rank(tg_http *h, conn_slot *x)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (x->rank_pass == h->evict_pass)
		return x->rank;
	x->rank_pass = h->evict_pass;
	x->rank = 1;
	if (getsockopt(x->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	    len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received) &&
	    ti.tcpi_bytes_received > 0)
		x->rank = ti.tcpi_last_data_recv < TG_HTTP_STALL_MS;
	return x->rank;
}

/* Is a a better one to evict than b? The lower rank, then the oldest. */
static int before(tg_http *h, conn_slot *a, conn_slot *b)
{
	int ra = rank(h, a), rb = rank(h, b);

	if (ra != rb)
		return ra < rb;
	return a->opened < b->opened;
}

/* A connection still waiting for its headers, as far as the server knows. */
static int waiting(const conn_slot *x)
{
	return x->fd >= 0 && !x->closing && !x->authed && !x->headers && !x->queued;
}

/* Under h->lock: a new connection (keep) past the limit of unauthenticated
 * connections per address cuts the connection of its address still
 * waiting for its headers that before() prefers (a stalled sender, else the
 * oldest), or, when every one of them is further along,
 * itself (unless its own request is complete in its queue). 1 if keep was
 * cut. Connections that showed a valid token do not count: every local
 * client of a shared host comes from 127.0.0.1. */
static int per_address(tg_http *h, conn_slot *keep)
{
	unsigned i, same = 0;
	conn_slot *old;

	if (!h->opt.unauth_per_ip)
		return 0;
	h->evict_pass++;
	for (i = 0; i < h->nslots; i++) {
		conn_slot *x = &h->slots[i];
		if (x->fd >= 0 && !x->closing && !x->authed && same_peer(x, keep))
			same++;
	}
	if (same <= h->opt.unauth_per_ip)
		return 0;
	do {
		old = NULL;
		for (i = 0; i < h->nslots; i++) {
			conn_slot *x = &h->slots[i];
			if (x != keep && waiting(x) && same_peer(x, keep) && (!old || before(h, x, old)))
				old = x;
		}
	} while (old && queued(old));
	if (old) {
		cut(old);
		return 0;
	}
	if (queued(keep))
		return 0;
	cut(keep);
	return 1;
}

/* Under h->lock: the connection to cut past the unauthenticated share:
 * one still waiting for its first headers, of the peer address that holds
 * the most unauthenticated connections (a client alone on its address is
 * the last to go), the one of them before() prefers. u: the n unauthenticated live
 * connections sorted by peer. */
static conn_slot *victim(tg_http *h, conn_slot **u, unsigned n, const conn_slot *keep)
{
	unsigned i, j, best_n = 0;
	conn_slot *old = NULL;

	for (i = 0; i < n; i = j) {
		conn_slot *o = NULL;
		for (j = i; j < n && same_peer(u[i], u[j]); j++) {
			if (u[j] != keep && waiting(u[j]) && (!o || before(h, u[j], o)))
				o = u[j];
		}
		if (o && (j - i > best_n || (j - i == best_n && before(h, o, old)))) {
			best_n = j - i;
			old = o;
		}
	}
	return old;
}

/* Under h->lock: past the unauthenticated share, or with no slot left
 * free, cut victim()'s choice; one found complete in its queue is passed
 * over and the choice made again. */
static void evict(tg_http *h, conn_slot *keep)
{
	unsigned n = h->opt.max_connections;
	unsigned cap = n - n * h->opt.auth_reserve_pct / 100;
	unsigned i, live = 0, unauth = 0;
	conn_slot **u, *old;

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
		h->evict_pass++;
		while ((old = victim(h, u, unauth, keep)) && queued(old))
			;
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
		s->queued = 0;
		s->stream = 0;
	}
	pthread_mutex_unlock(&h->lock);
}

void http_slot_deadlines(tg_http *h, uint64_t now)
{
	unsigned i;

	for (i = 0; i < h->nslots; i++) {
		conn_slot *s = &h->slots[i];
		uint64_t limit = s->authed ? h->opt.request_timeout_ms : h->opt.header_timeout_ms;
		if (s->fd >= 0 && !s->exempt && !s->closing && now - s->since > limit)
			cut(s);
	}
}

