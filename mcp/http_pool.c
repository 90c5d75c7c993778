/*
 * mcp/http_pool.c: what the HTTP transport shares between its connection
 * threads. The backend given to every session sends each registry
 * operation to a free worker process (http_worker.c); their number bounds
 * how many run at once: a slow tool call holds one worker and the other
 * sessions go on with the rest. Each principal has one quota object
 * for all its sessions. A watcher thread polls the toolset generation and
 * wakes the list_changed streams; every 100 ms it has http_guard.c close
 * the connections past their deadlines (slow senders, which
 * libmicrohttpd's idle timeout alone would let live) and, every second,
 * end the streams and sessions of revoked tokens.
 */
#include "http_internal.h"

#include <string.h>
#include <time.h>

static json_t *actor_json(const tg_actor *who)
{
	return json_pack("{s:s?, s:s?}", "kind", who ? who->kind : NULL, "session",
			 who ? who->session : NULL);
}

static int p_list(void *ctx, json_t **out)
{
	return http_worker_call(ctx, json_pack("{s:s}", "op", "list"), out);
}

/* The session's principal, for the worker to hand to the registry's one
 * decision (tg_authorize) for every call of the operation, at any depth. */
static json_t *principal_json(const tg_call_hooks *hooks)
{
	const tg_principal *p = hooks ? hooks->principal : NULL;

	if (!p)
		return json_null();
	return json_pack("{s:s?, s:O?, s:b, s:b}", "name", p->name, "tools", p->tool_patterns,
			 "may_approve", p->may_approve, "hide_write_tools", p->hide_write_tools);
}

static int p_create(void *ctx, json_t **out, const tg_submission *sub, const tg_actor *who,
		    const tg_call_hooks *hooks)
{
	return http_worker_call_hooked(
		ctx,
		json_pack("{s:s, s:O, s:s%, s:o, s:b, s:o}", "op", "create", "manifest", sub->manifest,
			  "source", sub->source ? sub->source : "", sub->source ? sub->source_len : 0,
			  "actor", actor_json(who), "hooks", hooks != NULL, "principal",
			  principal_json(hooks)),
		out, hooks);
}

static int p_call(void *ctx, json_t **out, const char *name, const json_t *args,
		  const tg_actor *who)
{
	return http_worker_call(ctx,
				json_pack("{s:s, s:s, s:O, s:o, s:s}", "op", "call", "name", name,
					  "args", args, "actor", actor_json(who), "event", "mcp_call"),
				out);
}

static int p_rollback(void *ctx, json_t **out, const char *name, unsigned to, unsigned flags,
		      const tg_actor *who)
{
	return http_worker_call(ctx,
				json_pack("{s:s, s:s, s:I, s:I, s:o}", "op", "rollback", "name",
					  name, "to", (json_int_t)to, "flags", (json_int_t)flags,
					  "actor", actor_json(who)),
				out);
}

static int p_history(void *ctx, json_t **out, const char *name)
{
	return http_worker_call(ctx, json_pack("{s:s, s:s}", "op", "history", "name", name), out);
}

static int p_audit(void *ctx, const tg_actor *who, const char *event, const char *tool,
		   const json_t *details)
{
	return http_worker_call(ctx,
				json_pack("{s:s, s:s, s:s?, s:O?, s:o}", "op", "audit", "event",
					  event, "tool", tool, "details", details, "actor",
					  actor_json(who)),
				NULL);
}

static int p_generation(void *ctx, uint64_t *out)
{
	_cleanup_json_ json_t *g = NULL;
	int r = http_worker_call(ctx, json_pack("{s:s}", "op", "generation"), &g);

	if (r == 0)
		*out = (uint64_t)json_integer_value(g);
	return r;
}

static int p_call_hooked(void *ctx, json_t **out, const char *name, const json_t *args,
			 const tg_actor *who, const tg_call_hooks *hooks)
{
	return http_worker_call_hooked(ctx,
				       json_pack("{s:s, s:s, s:O, s:o, s:b, s:s, s:O?, s:b, s:o}",
						 "op", "call", "name", name, "args", args, "actor",
						 actor_json(who), "hooks", hooks != NULL, "event",
						 "mcp_call", "replay", hooks ? hooks->replay : NULL,
						 "journal", hooks && hooks->journaled, "principal",
						 principal_json(hooks)),
				       out, hooks);
}

static int p_run(void *ctx, json_t **out, const tg_program *p, const tg_actor *who,
		 const tg_call_hooks *hooks)
{
	return http_worker_call_hooked(
		ctx,
		json_pack("{s:s, s:s%, s:O, s:O?, s:O?, s:o, s:b, s:O?, s:b, s:o}", "op", "run",
			  "source", p->source, p->source_len, "args", p->args, "calls", p->calls,
			  "limits", p->limits, "actor", actor_json(who), "hooks", hooks != NULL,
			  "replay", hooks ? hooks->replay : NULL, "journal",
			  hooks && hooks->journaled, "principal", principal_json(hooks)),
		out, hooks);
}

static int p_state_seal(void *ctx, char **out, const json_t *payload, const char *principal,
			const char *request_sha256)
{
	_cleanup_json_ json_t *st = NULL;
	int r = http_worker_call(ctx,
				 json_pack("{s:s, s:O, s:s, s:s}", "op", "state_seal", "payload",
					   payload, "principal", principal, "request",
					   request_sha256),
				 &st);

	*out = NULL;
	if (r < 0)
		return r;
	if (!json_is_string(st) || !(*out = strdup(json_string_value(st))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

static int p_state_redeem(void *ctx, json_t **out, const char *state, const char *principal,
			  const char *request_sha256)
{
	return http_worker_call(ctx,
				json_pack("{s:s, s:s, s:s, s:s}", "op", "state_redeem", "state",
					  state, "principal", principal, "request", request_sha256),
				out);
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
	out->call_hooked = p_call_hooked;
	out->run = p_run;
	out->state_seal = p_state_seal;
	out->state_redeem = p_state_redeem;
	out->logs_calls = 1; /* the worker appends "mcp_call" (http_worker.c) */
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

static void *watcher(void *arg)
{
	tg_http *h = arg;
	uint64_t next_gen = 0;

	pthread_mutex_lock(&h->lock);
	while (!*h->stop) {
		uint64_t now = tg_now_ms();
		struct timespec ts;

		http_slot_deadlines(h, now); /* http_slots.c */
		http_guard_revoked(h);
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
