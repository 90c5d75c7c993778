/*
 * mcp/http_pool.c: what the HTTP transport shares between its connection
 * threads. A fixed pool of registry handles (one SQLite connection each)
 * bounds how many requests run at once: a slow tool call holds one handle
 * and the other sessions go on with the rest. The backend given to every
 * session takes a handle per operation. Each principal has one quota object
 * for all its sessions. A watcher thread polls the toolset generation and
 * wakes the list_changed streams, and closes the socket of any connection
 * whose request has not arrived whole within the request timeout (slow
 * senders), which libmicrohttpd's idle timeout alone would let live.
 */
#include "http_internal.h"

#include <string.h>
#include <sys/socket.h>
#include <time.h>

int http_pool_open(tg_http *h)
{
	unsigned i;
	int r;

	h->regs = calloc(h->opt.workers, sizeof(*h->regs));
	h->busy = calloc(h->opt.workers, 1);
	if (!h->regs || !h->busy)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < h->opt.workers; i++) {
		r = tg_registry_open(&h->regs[i], h->opt.home, 1);
		if (r < 0)
			return r;
		h->nregs++;
	}
	return 0;
}

void http_pool_close(tg_http *h)
{
	unsigned i;

	for (i = 0; i < h->nregs; i++)
		tg_registry_free(h->regs[i]);
	free(h->regs);
	free(h->busy);
	h->regs = NULL;
	h->busy = NULL;
	h->nregs = 0;
}

tg_registry *http_reg_acquire(tg_http *h)
{
	unsigned i;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		for (i = 0; i < h->nregs; i++) {
			if (!h->busy[i]) {
				h->busy[i] = 1;
				pthread_mutex_unlock(&h->lock);
				return h->regs[i];
			}
		}
		pthread_cond_wait(&h->reg_free, &h->lock);
	}
}

void http_reg_release(tg_http *h, tg_registry *r)
{
	unsigned i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < h->nregs; i++) {
		if (h->regs[i] == r)
			h->busy[i] = 0;
	}
	pthread_cond_signal(&h->reg_free);
	pthread_mutex_unlock(&h->lock);
}

/* ---- the backend: one pooled handle per operation ---------------------------- */

#define WITH_REG(call)                                  \
	do {                                            \
		tg_http *h_ = ctx;                      \
		tg_registry *reg = http_reg_acquire(h_); \
		int rc_ = (call);                       \
		http_reg_release(h_, reg);              \
		return rc_;                             \
	} while (0)

static int p_list(void *ctx, json_t **out)
{
	WITH_REG(tg_registry_list(out, reg));
}

static int p_create(void *ctx, json_t **out, const tg_submission *sub, const tg_actor *who)
{
	WITH_REG(tg_registry_create(out, reg, sub, who));
}

static int p_call(void *ctx, json_t **out, const char *name, const json_t *args,
		  const tg_actor *who)
{
	WITH_REG(tg_registry_call(out, reg, name, args, who));
}

static int p_rollback(void *ctx, json_t **out, const char *name, unsigned to, unsigned flags,
		      const tg_actor *who)
{
	WITH_REG(tg_registry_rollback(out, reg, name, to, flags, who));
}

static int p_history(void *ctx, json_t **out, const char *name)
{
	WITH_REG(tg_registry_history(out, reg, name));
}

static int p_audit(void *ctx, const tg_actor *who, const char *event, const char *tool,
		   const json_t *details)
{
	WITH_REG(tg_registry_audit(reg, who, event, tool, details));
}

static int p_generation(void *ctx, uint64_t *out)
{
	WITH_REG(tg_registry_toolset_generation(out, reg));
}

void http_backend(tg_http *h, tg_mcp_backend *out)
{
	out->ctx = h;
	out->list = p_list;
	out->create = p_create;
	out->call = p_call;
	out->rollback = p_rollback;
	out->history = p_history;
	out->audit = p_audit;
	out->generation = p_generation;
}

/* ---- principals' quotas ---------------------------------------------------- */

tg_mcp_quota *http_quota_get(tg_http *h, const char *principal)
{
	tg_mcp_quota *q = NULL;
	size_t i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < TG_HTTP_MAX_PRINCIPALS && h->quotas[i]; i++) {
		if (strcmp(h->quotas[i]->name, principal) == 0) {
			q = &h->quotas[i]->q;
			goto out;
		}
	}
	if (i < TG_HTTP_MAX_PRINCIPALS && (h->quotas[i] = calloc(1, sizeof(http_quota)))) {
		snprintf(h->quotas[i]->name, sizeof(h->quotas[i]->name), "%s", principal);
		pthread_mutex_init(&h->quotas[i]->q.lock, NULL);
		q = &h->quotas[i]->q;
	}
out:
	pthread_mutex_unlock(&h->lock);
	return q;
}

/* ---- connections and the watcher ------------------------------------------ */

conn_slot *http_slot_add(tg_http *h, int fd)
{
	conn_slot *s = NULL;
	unsigned i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < h->nslots; i++) {
		if (h->slots[i].fd < 0) {
			s = &h->slots[i];
			s->fd = fd;
			s->since = tg_now_ms();
			s->exempt = 0;
			break;
		}
	}
	pthread_mutex_unlock(&h->lock);
	return s;
}

void http_slot_free(tg_http *h, conn_slot *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&h->lock);
	s->fd = -1;
	pthread_mutex_unlock(&h->lock);
}

/* exempt 0 starts the clock of the next request on this connection */
void http_slot_exempt(tg_http *h, conn_slot *s, int exempt)
{
	if (!s)
		return;
	pthread_mutex_lock(&h->lock);
	s->exempt = exempt;
	if (!exempt)
		s->since = tg_now_ms();
	pthread_mutex_unlock(&h->lock);
}

static void *watcher(void *arg)
{
	tg_http *h = arg;
	uint64_t next_gen = 0;

	pthread_mutex_lock(&h->lock);
	while (!*h->stop) {
		uint64_t now = tg_now_ms();
		struct timespec ts;
		unsigned i;

		for (i = 0; i < h->nslots; i++) {
			conn_slot *s = &h->slots[i];
			if (s->fd >= 0 && !s->exempt && now - s->since > h->opt.request_timeout_ms) {
				/* the connection thread sees end of input and closes */
				shutdown(s->fd, SHUT_RDWR);
				s->exempt = 1;
			}
		}
		if (now >= next_gen) {
			uint64_t g;
			int r;
			pthread_mutex_unlock(&h->lock);
			r = h->be.generation(h->be.ctx, &g);
			pthread_mutex_lock(&h->lock);
			if (r == 0 && g != h->gen) {
				h->gen = g;
				h->gen_seq++;
				pthread_cond_broadcast(&h->changed);
			}
			next_gen = tg_now_ms() + TG_MCP_POLL_MS;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->changed, &h->lock, &ts);
	}
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int http_watcher_start(tg_http *h)
{
	uint64_t g = 0;

	if (h->be.generation(h->be.ctx, &g) == 0)
		h->gen = g;
	if (pthread_create(&h->watcher, NULL, watcher, h) != 0)
		return tg_error_set(TG_ERR_UNAVAILABLE, "cannot start the watcher thread");
	h->watcher_started = 1;
	return 0;
}

void http_watcher_stop(tg_http *h)
{
	if (!h->watcher_started)
		return;
	pthread_mutex_lock(&h->lock);
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->watcher, NULL);
	h->watcher_started = 0;
}
