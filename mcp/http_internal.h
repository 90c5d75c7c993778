/*
 * mcp/http_internal.h: state shared by http.c (routing, auth, sessions,
 * streams), http_worker.c (the registry worker processes) and http_pool.c
 * (the backend over the workers, the principals' quotas, the toolset
 * watcher and the request-timeout watchdog), http_slots.c (connections
 * before and after a token: deadlines, eviction), http_guard.c (the body
 * budget, revoked tokens), http_stream.c (the SSE streams) and http_live.c
 * with http_liveq.c (a tools/call's notifications live on its POST's SSE
 * answer, and their bounded queue).
 */
#ifndef TG_MCP_HTTP_INTERNAL_H
#define TG_MCP_HTTP_INTERNAL_H

#include "mcp/internal.h"

#define TG_HTTP_MAX_SESSIONS 1024
#define TG_HTTP_MAX_PRINCIPALS 1024
/* the bytes of a live tools/call's events not yet written (http_live.c) */
#define TG_HTTP_LIVE_MAX ((size_t)256 << 10)

struct tg_http;

/* http_headers.c: a 2026-07-28 request's Mcp-Method, MCP-Protocol-Version and
 * Mcp-Name (the values, NULL when absent) against its body (SEP-2243): 0
 * when they agree, 1 with the reason in msg when not. */
int tg_http_headers_mismatch(const char *h_method, const char *h_version, const char *h_name,
			     const char *method, const json_t *params, char *msg, size_t size);

/* One initialize-era session: its protocol state, behind its own lock. */
typedef struct http_session {
	char id[65];
	char principal[65];
	tg_mcp_server *srv;
	json_t *patterns;  /* the principal's tool patterns, owned */
	pthread_mutex_t lock;
	unsigned refs;     /* table + requests in flight (under h->lock) */
	int closed;
	/* elicitation (http_elicit.c), under h->lock: requests waiting for
	 * the session's GET stream, the id awaited and its response */
	struct tg_http *h;
	json_t *outbox;
	char waiting[48];
	json_t *answer;
	unsigned streams;  /* GET streams open */
	char secret[TG_TOKEN_LEN + 1]; /* the token that opened it (re-checked) */
	/* http_cancel.c, under h->lock: the tools/call being answered and
	 * whether a notifications/cancelled named it */
	json_t *inflight;
	int inflight_cancelled;
} http_session;

typedef struct http_quota {
	char name[65];
	tg_mcp_quota q;
} http_quota;

/* A live connection, for the watchdog of the deadlines and the eviction
 * (http_slots.c). A header block up to TG_HTTP_PEEK bytes is seen whole in
 * a receive queue before libmicrohttpd reads it. */
#define TG_HTTP_PEEK 8192
#define TG_HTTP_STALL_MS 100
typedef struct conn_slot {
	int fd;            /* -1 = free */
	uint64_t since;    /* start of the request being received */
	uint64_t opened;   /* accepted at (the oldest is evicted first) */
	int exempt;        /* answering (tool running, stream open): not timed */
	int headers;       /* the current request's headers have arrived */
	int queued;        /* ... or were seen whole in its receive queue */
	int rank;          /* as a victim (http_slots.c), asked at pass rank_pass */
	unsigned rank_pass;
	int authed;        /* a request on it presented a valid token */
	int closing;       /* shut down by the watcher or evicted */
	int stream;        /* an SSE stream is open on it */
	int revoked;       /* its stream's token was revoked: the stream ends */
	char secret[TG_TOKEN_LEN + 1]; /* the token of its stream (re-checked) */
	unsigned char peer[16]; /* the peer's address (4 or 16 bytes) */
	unsigned char peer_len;
} conn_slot;

typedef struct tg_http {
	tg_mcp_http_options opt;
	volatile int *stop;
	pthread_mutex_t lock;
	pthread_cond_t changed;  /* toolset generation moved, or stopping */
	uint64_t gen;
	uint64_t gen_seq;        /* bumped at each change seen */
	/* the registry worker processes */
	int *wfd;
	pid_t *wpid;
	unsigned char *busy;     /* 0 free, 1 busy, 2 dead */
	tg_commit_group *group;  /* the workers' shared fsync (group commit) */
	tg_cancel **wcancel;     /* per worker, its eventfd shared with it */
	http_session **wowner;   /* the session whose tools/call it serves */
	unsigned nworkers;
	/* requests waiting for a worker, first come first served; each waits
	 * on its own condition, so a released worker wakes one thread, not all
	 * (http_worker.c); under wlock, not the server's lock */
	pthread_mutex_t wlock;
	struct http_waiter *whead, *wtail;
	tg_mcp_backend be;
	/* sessions and principals */
	http_session *sessions[TG_HTTP_MAX_SESSIONS];
	http_quota *quotas[TG_HTTP_MAX_PRINCIPALS];
	/* connections */
	conn_slot *slots;
	unsigned nslots;
	size_t body_inflight;    /* request body bytes reserved (http_guard.c) */
	unsigned evict_pass;     /* bumped per eviction choice (http_slots.c) */
	uint64_t next_revoke;    /* when the watcher re-checks open tokens */
	pthread_t watcher;
	int watcher_started;
	char base_url[128];      /* http://ADDR:PORT */
	char port_s[8];
} tg_http;

/* http_session.c: a live session of this principal (a reference taken),
 * and its release. */
http_session *http_session_find(tg_http *h, const char *id, const char *principal);
void http_session_unref(tg_http *h, http_session *s);
/* http_elicit.c: the session's exchange (tg_mcp_server.exchange), and a
 * client's POSTed response to it; the next request for the GET stream. */
int http_exchange(void *ctx, json_t *req, json_t **resp, uint64_t timeout_ms);
void http_elicit_answer(tg_http *h, http_session *s, const json_t *msg);
json_t *http_outbox_pop(http_session *s);
/* http_worker.c: fork the workers (before any thread), stop them; run one
 * operation on a free worker (q stolen; *out its "out", NULL for null). */
int http_workers_start(tg_http *h);
void http_workers_stop(tg_http *h);
int http_worker_call(tg_http *h, json_t *q, json_t **out);
/* http_metrics.c: tg_registry_metrics's figures as Prometheus text (free()
 * it), or NULL when out of memory. */
char *http_metrics_text(const json_t *m);
/* The same for a tool call or a run whose bridged calls ask the session's
 * hooks (the call budget) through the server process. */
int http_worker_call_hooked(tg_http *h, json_t *q, json_t **out, const tg_call_hooks *hooks);
/* http_cancel.c: a tools/call of session s begins (msg: 1 when it is one,
 * 0 other messages) and ends on this connection thread; a
 * notifications/cancelled POSTed to s (1: it named the call in flight); a
 * worker taken and given back by this thread. */
extern _Thread_local http_session *http_tl_session;
int http_cancel_begin(tg_http *h, http_session *s, const json_t *msg);
void http_cancel_end(tg_http *h, http_session *s);
int http_cancel_request(tg_http *h, http_session *s, const json_t *msg);
/* Under h->lock: cancel s's tools/call in flight, if any (no answer for it;
 * its worker's build or run is killed), as for a notifications/cancelled;
 * http_guard.c's revocation. */
void http_cancel_inflight_locked(tg_http *h, http_session *s);
void http_cancel_worker_take(tg_http *h, unsigned i);
void http_cancel_worker_done(tg_http *h, unsigned i);
/* http_pool.c */
void http_backend(tg_http *h, tg_mcp_backend *out);
tg_mcp_quota *http_quota_get(tg_http *h, const char *principal);
int http_watcher_start(tg_http *h);
void http_watcher_stop(tg_http *h);
/* http_slots.c: a connection accepted (past the limits one still waiting
 * for its headers is evicted), closed; its request's headers arrived
 * (checking 1: its token is being checked; then 0 with the valid token,
 * else NULL); answered or not timed; the watcher's pass over the
 * deadlines. */
struct sockaddr;
conn_slot *http_slot_add(tg_http *h, int fd, const struct sockaddr *peer);
void http_slot_free(tg_http *h, conn_slot *s);
void http_slot_headers(tg_http *h, conn_slot *s, int checking, const char *secret);
void http_slot_exempt(tg_http *h, conn_slot *s, int exempt);
void http_slot_deadlines(tg_http *h, uint64_t now);
/* http_guard.c: reserve n more bytes of body (0, or -1 past the server's
 * budget) and give them back; a token still valid (1), revoked (0); the
 * watcher's re-check of the tokens of open streams and sessions. */
int http_body_reserve(tg_http *h, size_t n);
void http_body_release(tg_http *h, size_t n);
int http_token_valid(tg_http *h, const char *secret);
void http_guard_revoked(tg_http *h);
/* A stream found its token revoked before an event: every stream and
 * session of that token ends now, not at the watcher's next pass. */
void http_guard_revoke_now(tg_http *h, const char *secret);
/* http_session.c: close a session (removed from the table, its streams end). */
void http_session_close(tg_http *h, http_session *s);
/* http_stream.c: answer with an SSE stream (sub_id: a 2026-07-28
 * subscriptions/listen, else sess's GET stream) on this request's slot. */
struct MHD_Connection;
/* http.c: answer a request with a session's output (its notifications and
 * answer, out cleared) and the request's outcome: the status (403, 400,
 * 404, 500) and, for a client that accepts it, SSE. */
typedef struct http_outcome {
	int failed;    /* the session could not handle it: 500 */
	int forbidden; /* a tool the principal may not use: 403 */
	int bad_meta;  /* a 2026-07-28 request without its _meta: 400 */
	int modern;    /* a 2026-07-28 request (unknown method: 404) */
	int queued;    /* http_live.c: its stream was queued */
} http_outcome;
int http_respond(struct MHD_Connection *c, tg_buf *out, const http_outcome *oc,
		 const char *session_hdr);
/* http_liveq.c: the bounded queue of a live SSE answer: push one line
 * (a JSON-RPC message; must: the answer, always queued, else within max
 * bytes pending: a progress past it coalesced, another message dropped and
 * counted); flush the progress held back; take up to max bytes of SSE
 * text for the client (0: none pending). */
typedef struct http_liveq {
	tg_buf q;         /* SSE text; the bytes before off are taken */
	size_t off;
	size_t max;
	char *held;       /* the latest progress held back past max */
	size_t held_len;
	uint64_t dropped; /* messages dropped past max */
} http_liveq;
void http_liveq_init(http_liveq *q, size_t max);
void http_liveq_free(http_liveq *q);
void http_liveq_push(http_liveq *q, const char *line, size_t n, int must);
void http_liveq_flush(http_liveq *q);
size_t http_liveq_take(http_liveq *q, char *buf, size_t max);
size_t http_liveq_pending(const http_liveq *q);
/* http_live.c: whether a request of session s (its lock held) is answered
 * live: a tools/call that may send notifications, for a client that
 * accepts SSE. Then run it so, without s's lock (body's content is
 * taken): 1 when its answer is a live SSE stream (oc->queued: libmicrohttpd
 * took it); 0 when it ended before any notification: its output in out
 * and its outcome in oc, for http_respond; <0 it could not start. */
int http_live_wanted(struct MHD_Connection *c, http_session *s, const json_t *msg);
int http_live_answer(tg_http *h, struct MHD_Connection *c, conn_slot *slot, http_session *s,
		     tg_buf *body, const json_t *msg, tg_buf *out, http_outcome *oc);
int http_open_stream(tg_http *h, struct MHD_Connection *c, conn_slot *slot,
		     const json_t *sub_id, http_session *sess);

#endif
