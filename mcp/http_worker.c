/*
 * mcp/http_worker.c: the registry work of `serve --http` runs in worker
 * processes, forked before the server starts any thread. Each holds its own
 * registry handle and serves one operation at a time over a socketpair
 * (frames: 4-byte big-endian length, then a JSON object), so a tool run is
 * started from a small single-threaded process, as with stdio, instead of
 * from the many-threaded server, where every fork() of the sandbox would
 * copy the server's page tables and shoot down the TLB of every core
 * (measured: copy_page_range and ptep_clear_flush led the profile, and the
 * server made fewer calls per second than separate stdio servers).
 * Requests: {"op","actor":{"kind","session"},...}; answers
 * {"rc":N,"msg":"...","out":V}. A worker dies with the server (PDEATHSIG)
 * and ends at end of input. cli's worker_init hook runs first in each
 * worker (its sandbox pool, the net namespace maker: threads of the worker's
 * own, started after the fork), worker_exit last. The workers share one
 * tg_commit_group, made
 * before the fork: the durable commits they make at the same time (calls'
 * intents and outcomes) share one fsync (registry/commit.c).
 */
#include "http_internal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define FRAME_MAX ((size_t)256 << 20)

/* Frames (common/frame.c); the workers are our own processes: their
 * answers are read as jansson reads them, NUL escapes and all. */
static json_t *frame_read(int fd)
{
	_cleanup_free_ char *buf = NULL;
	size_t n;

	if (tg_frame_read(fd, FRAME_MAX, &buf, &n) != 1)
		return NULL;
	return json_loadb(buf, n, JSON_ALLOW_NUL, NULL);
}

/* ---- the worker ------------------------------------------------------------ */

/* The session's hooks seen from a worker: each bridged call attempt of the
 * operation in progress asks the server process, which counts it against
 * the session's budget ({"hook":"attempt"} -> {"ok","why"}). The worker's
 * main thread waits for the tool run meanwhile, so the bridge's serving
 * thread has the descriptor to itself. A call that needs a person asks
 * the session the same way ({"hook":"ask","q":{...}} -> {"rc","why"}):
 * its answer may take as long as the person (approve.c, http_elicit.c).
 * The 2026-07-28 replay journal goes both ways with the operation: the
 * session's "replay" in the request, the run's "journal" in the answer. */
static int worker_attempt(void *ctx, const char *caller, const char *callee, char *why,
			  size_t whylen)
{
	int fd = *(int *)ctx, ok = 0;
	_cleanup_json_ json_t *q = json_pack("{s:s, s:s, s:s}", "hook", "attempt", "caller",
					     caller, "callee", callee);
	_cleanup_json_ json_t *a = NULL;

	snprintf(why, whylen, "the server cannot count this call against the session");
	if (!q || tg_frame_write(fd, q) < 0 || !(a = frame_read(fd)))
		return 0;
	ok = json_is_true(json_object_get(a, "ok"));
	if (!ok && json_is_string(json_object_get(a, "why")))
		snprintf(why, whylen, "%s", json_string_value(json_object_get(a, "why")));
	return ok;
}

/* The session's answers are static strings on both sides. */
static const char *static_why(const char *w)
{
	static const char *const known[] = { "declined", "cancelled", "timeout",
					     "input_required", "request_state",
					     "request_state_declined" };
	size_t i;

	for (i = 0; w && i < TG_ARRAY_SIZE(known); i++) {
		if (strcmp(w, known[i]) == 0)
			return known[i];
	}
	return "declined";
}

static int worker_ask(void *ctx, const tg_call_question *q, const char **why)
{
	int fd = *(int *)ctx, rc;
	_cleanup_json_ json_t *m = json_pack(
		"{s:s, s:{s:I, s:s, s:s, s:s, s:s, s:s, s:O, s:I, s:I}}", "hook", "ask", "q", "id",
		(json_int_t)q->id, "callee", q->callee, "callee_version", q->callee_version,
		"binding", q->binding, "args_sha256", q->args_sha256, "caller", q->caller, "args",
		q->args, "run", (json_int_t)q->run, "timeout_ms", (json_int_t)q->timeout_ms);
	_cleanup_json_ json_t *a = NULL;

	*why = "declined";
	if (!m || tg_frame_write(fd, m) < 0 || !(a = frame_read(fd)))
		return tg_error_set(TG_ERR_UNAVAILABLE, "the server cannot ask the session");
	rc = (int)json_integer_value(json_object_get(a, "rc"));
	*why = static_why(json_string_value(json_object_get(a, "why")));
	if (rc < 0)
		return tg_error_set(rc, "%s", json_string_value(json_object_get(a, "msg")) ?: "");
	return rc == 1;
}

/* An event of the operation (tg_op_event: logging and progress, notify.c)
 * goes to the server one way ({"hook":"event",...}, no answer); events are
 * made on the worker's main thread only (never a bridged callee's run), so
 * they never cross the bridge thread's frames. */
static void worker_event(void *ctx, const tg_op_event *ev)
{
	int fd = *(int *)ctx;
	_cleanup_json_ json_t *m = json_pack("{s:s, s:s?, s:s, s:s, s:i, s:i}", "hook", "event",
					     "level", ev->level, "logger", ev->logger ?: "",
					     "message", ev->message ?: "", "step", (int)ev->step,
					     "total", (int)ev->total);

	if (m && tg_frame_write(fd, m) < 0)
		tg_error_clear(); /* the server is gone: the operation's answer fails too */
}

static int worker_fd = -1;
/* The journal of the operation in progress (replay.c), sent back with its
 * answer: the session seals it into a requestState. */
static json_t *worker_journal;

static void worker_journaled(void *ctx, json_t *journal)
{
	(void)ctx;
	json_decref(worker_journal);
	worker_journal = journal;
}

/* The session's principal as the server sent it (http_pool.c), borrowed
 * from q for the length of the operation; NULL: the local operator. */
static const tg_principal *principal_of(tg_principal *p, const json_t *q)
{
	const json_t *j = json_object_get(q, "principal");

	if (!json_is_object(j))
		return NULL;
	p->name = json_string_value(json_object_get(j, "name"));
	p->tool_patterns = json_is_array(json_object_get(j, "tools")) ? json_object_get(j, "tools")
								       : NULL;
	p->may_approve = json_is_true(json_object_get(j, "may_approve"));
	p->hide_write_tools = json_is_true(json_object_get(j, "hide_write_tools"));
	return p;
}

static json_t *serve_one(tg_registry *reg, const json_t *q)
{
	tg_principal pr;
	const char *op = json_string_value(json_object_get(q, "op"));
	const json_t *a = json_object_get(q, "actor");
	tg_actor who = { json_string_value(json_object_get(a, "kind")),
			 json_string_value(json_object_get(a, "session")) };
	const char *name = json_string_value(json_object_get(q, "name"));
	json_t *out = NULL;
	int rc;

	if (!op)
		op = "";
	tg_error_clear();
	if (strcmp(op, "list") == 0) {
		rc = tg_registry_list(&out, reg);
	} else if (strcmp(op, "create") == 0) {
		const json_t *src = json_object_get(q, "source");
		tg_submission sub = { json_object_get(q, "manifest"), json_string_value(src),
				      json_string_length(src) };
		/* the tests' bridged calls: the session's principal and budget */
		tg_call_hooks hooks = { .ctx = &worker_fd, .attempt = worker_attempt };
		hooks.principal = principal_of(&pr, q);
		if (json_is_true(json_object_get(q, "events")))
			hooks.event = worker_event;
		if (json_is_true(json_object_get(q, "hooks")))
			tg_registry_set_call_hooks(reg, &hooks);
		rc = tg_registry_create(&out, reg, &sub, &who);
		tg_registry_set_call_hooks(reg, NULL);
	} else if (strcmp(op, "call") == 0 || strcmp(op, "run") == 0) {
		tg_call_hooks hooks = { .ctx = &worker_fd, .attempt = worker_attempt,
					.ask = worker_ask };
		hooks.principal = principal_of(&pr, q);
		if (json_is_true(json_object_get(q, "events")))
			hooks.event = worker_event;
		hooks.replay = json_is_array(json_object_get(q, "replay")) ? json_object_get(q, "replay")
									 : NULL;
		if (json_is_true(json_object_get(q, "journal")))
			hooks.journaled = worker_journaled;
		if (json_is_true(json_object_get(q, "hooks")))
			tg_registry_set_call_hooks(reg, &hooks);
		if (op[0] == 'c') {
			/* "event": the session's own entry for the call, written in
			 * the outcome's transaction (tg_registry_call_logged) */
			const char *ev = json_string_value(json_object_get(q, "event"));
			rc = ev ? tg_registry_call_logged(&out, reg, name, json_object_get(q, "args"),
							  &who, ev)
				: tg_registry_call(&out, reg, name, json_object_get(q, "args"), &who);
		} else {
			const json_t *src = json_object_get(q, "source");
			const json_t *calls = json_object_get(q, "calls");
			const json_t *limits = json_object_get(q, "limits");
			tg_program p = { json_string_value(src), json_string_length(src),
					 json_object_get(q, "args"),
					 json_is_null(calls) ? NULL : calls,
					 json_is_null(limits) ? NULL : limits };
			rc = tg_registry_run_program(&out, reg, &p, &who);
		}
		tg_registry_set_call_hooks(reg, NULL);
	} else if (strcmp(op, "rollback") == 0) {
		rc = tg_registry_rollback(&out, reg, name,
					  (unsigned)json_integer_value(json_object_get(q, "to")),
					  (unsigned)json_integer_value(json_object_get(q, "flags")),
					  &who);
	} else if (strcmp(op, "history") == 0) {
		rc = tg_registry_history(&out, reg, name);
	} else if (strcmp(op, "audit") == 0) {
		rc = tg_registry_audit(reg, &who, json_string_value(json_object_get(q, "event")),
				       json_string_value(json_object_get(q, "tool")),
				       json_object_get(q, "details"));
	} else if (strcmp(op, "generation") == 0) {
		uint64_t g = 0;
		rc = tg_registry_toolset_generation(&g, reg);
		if (rc == 0)
			out = json_integer((json_int_t)g);
	} else if (strcmp(op, "state_seal") == 0) {
		char *st = NULL;
		rc = tg_registry_state_seal(&st, reg, json_object_get(q, "payload"),
					    json_string_value(json_object_get(q, "principal")),
					    json_string_value(json_object_get(q, "request")));
		if (rc == 0 && !(out = json_string(st)))
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		free(st);
	} else if (strcmp(op, "state_redeem") == 0) {
		rc = tg_registry_state_redeem(&out, reg, json_string_value(json_object_get(q, "state")),
					      json_string_value(json_object_get(q, "principal")),
					      json_string_value(json_object_get(q, "request")));
	} else if (strcmp(op, "metrics") == 0) {
		rc = tg_registry_metrics(&out, reg);
	} else if (strcmp(op, "token") == 0) {
		rc = tg_registry_token_check(&out, reg,
					     json_string_value(json_object_get(q, "secret")));
	} else {
		rc = tg_error_set(TG_ERR_INTERNAL, "worker: unknown op");
	}
	out = json_pack("{s:i, s:s, s:o}", "rc", rc, "msg", rc < 0 ? tg_error_last()->message : "",
			"out", out ? out : json_null());
	if (out && worker_journal)
		json_object_set(out, "journal", worker_journal);
	json_decref(worker_journal);
	worker_journal = NULL;
	return out;
}

static void worker_main(int fd, unsigned index, const tg_mcp_http_options *opt,
			tg_commit_group *group, const tg_cancel *cancel)
{
	tg_registry *reg = NULL;
	const char *home = opt->home;
	json_t *q;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(0);
	if (opt->worker_init)
		opt->worker_init(opt->ctx, index);
	if (tg_registry_open(&reg, home, 1) < 0) {
		if (opt->worker_exit)
			opt->worker_exit(opt->ctx);
		_exit(3);
	}
	/* the workers' commits that arrive together share one fsync */
	tg_registry_set_commit_group(reg, group);
	worker_fd = fd;
	/* fired by the server (http_cancel.c), drained by it after each answer */
	tg_registry_set_cancel(reg, cancel);
	while ((q = frame_read(fd))) {
		json_t *a;
		/* the call profile ($TG_CALL_PROFILE, if cli turned it on in
		 * worker_init): a call's stamps from the request's arrival in
		 * this worker to its answer sent to the server */
		tg_prof_mark(TG_PROF_READ);
		a = serve_one(reg, q);
		json_decref(q);
		if (!a || tg_frame_write(fd, a) < 0)
			break;
		json_decref(a);
		tg_prof_mark(TG_PROF_WRITTEN);
		tg_prof_flush();
	}
	tg_registry_free(reg);
	if (opt->worker_exit)
		opt->worker_exit(opt->ctx);
	_exit(0);
}

/* ---- the server side ------------------------------------------------------- */

int http_workers_start(tg_http *h)
{
	unsigned i;

	h->wfd = calloc(h->opt.workers, sizeof(*h->wfd));
	h->wpid = calloc(h->opt.workers, sizeof(*h->wpid));
	h->busy = calloc(h->opt.workers, 1);
	h->wcancel = calloc(h->opt.workers, sizeof(*h->wcancel));
	h->wowner = calloc(h->opt.workers, sizeof(*h->wowner));
	if (!h->wfd || !h->wpid || !h->busy || !h->wcancel || !h->wowner)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (tg_commit_group_new(&h->group) < 0)
		return tg_error_last()->code;
	/* the workers hash: libcrypto is loaded once here, not in a child of
	 * a process that has threads */
	if (tg_crypto_load() < 0)
		return tg_error_last()->code;
	for (i = 0; i < h->opt.workers; i++) {
		int sv[2];
		pid_t pid;

		/* before the fork: the worker shares its eventfd */
		if (tg_cancel_new(&h->wcancel[i]) < 0)
			return -1;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return tg_error_errno(TG_ERR_IO, errno, "socketpair");
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			close(sv[0]);
			close(sv[1]);
			return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "fork a worker");
		}
		if (pid == 0) {
			unsigned k;
			close(sv[0]);
			for (k = 0; k < h->nworkers; k++) {
				close(h->wfd[k]);
				tg_cancel_free(h->wcancel[k]);
			}
			worker_main(sv[1], i, &h->opt, h->group, h->wcancel[i]);
		}
		close(sv[1]);
		h->wfd[i] = sv[0];
		h->wpid[i] = pid;
		h->nworkers++;
	}
	return 0;
}

void http_workers_stop(tg_http *h)
{
	unsigned i;

	for (i = 0; i < h->nworkers; i++)
		close(h->wfd[i]);
	for (i = 0; i < h->nworkers; i++) {
		while (waitpid(h->wpid[i], NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (i = 0; h->wcancel && i < h->opt.workers; i++)
		tg_cancel_free(h->wcancel[i]);
	free(h->wcancel);
	free(h->wowner);
	free(h->wfd);
	free(h->wpid);
	free(h->busy);
	tg_commit_group_free(h->group);
	h->group = NULL;
	h->wcancel = NULL;
	h->wowner = NULL;
	h->wfd = NULL;
	h->wpid = NULL;
	h->busy = NULL;
	h->nworkers = 0;
}

/* Workers are handed out first come, first served: a request that finds
 * none free queues with its own condition variable, and a released worker
 * goes straight to the head of the queue, waking that one thread. (A
 * shared condition broadcast at every release woke all 30 waiting
 * connection threads of a 32-session load to find one worker: the server
 * process spent most of its CPU switching between them.) */
struct http_waiter {
	struct http_waiter *next;
	pthread_cond_t cv;
	unsigned got; /* the worker handed over; (unsigned)-1: all died */
	int done;
};

static int any_alive(const tg_http *h)
{
	unsigned i;

	for (i = 0; i < h->nworkers; i++)
		if (h->busy[i] != 2)
			return 1;
	return 0;
}

static unsigned acquire(tg_http *h)
{
	struct http_waiter me;
	unsigned i;

	pthread_mutex_lock(&h->wlock);
	if (!any_alive(h)) {
		pthread_mutex_unlock(&h->wlock);
		return (unsigned)-1;
	}
	if (!h->whead) {
		for (i = 0; i < h->nworkers; i++) {
			if (h->busy[i] == 0) {
				h->busy[i] = 1;
				pthread_mutex_unlock(&h->wlock);
				return i;
			}
		}
	}
	memset(&me, 0, sizeof(me));
	pthread_cond_init(&me.cv, NULL);
	if (h->wtail)
		h->wtail->next = &me;
	else
		h->whead = &me;
	h->wtail = &me;
	while (!me.done)
		pthread_cond_wait(&me.cv, &h->wlock);
	pthread_mutex_unlock(&h->wlock);
	pthread_cond_destroy(&me.cv);
	return me.got;
}

static void release(tg_http *h, unsigned i, int broken)
{
	struct http_waiter *w;

	pthread_mutex_lock(&h->wlock);
	if (broken) {
		h->busy[i] = 2; /* a broken worker stays out of the pool */
		if (!any_alive(h)) {
			while ((w = h->whead)) {
				h->whead = w->next;
				w->got = (unsigned)-1;
				w->done = 1;
				pthread_cond_signal(&w->cv);
			}
			h->wtail = NULL;
		}
	} else if ((w = h->whead)) {
		h->whead = w->next; /* handed over: busy[i] stays 1 */
		if (!h->whead)
			h->wtail = NULL;
		w->got = i;
		w->done = 1;
		pthread_cond_signal(&w->cv);
	} else {
		h->busy[i] = 0;
	}
	pthread_mutex_unlock(&h->wlock);
}

int http_worker_call(tg_http *h, json_t *q /* stolen */, json_t **out)
{
	return http_worker_call_hooked(h, q, out, NULL);
}

/* A worker's ask, answered with the session's hook (none: the queue). */
static json_t *answer_ask(const json_t *a, const tg_call_hooks *hooks)
{
	const json_t *j = json_object_get(a, "q");
	tg_call_question q = {
		.id = (int64_t)json_integer_value(json_object_get(j, "id")),
		.callee = json_string_value(json_object_get(j, "callee")) ?: "",
		.callee_version = json_string_value(json_object_get(j, "callee_version")) ?: "",
		.binding = json_string_value(json_object_get(j, "binding")) ?: "",
		.args_sha256 = json_string_value(json_object_get(j, "args_sha256")) ?: "",
		.caller = json_string_value(json_object_get(j, "caller")) ?: "",
		.args = json_object_get(j, "args"),
		.run = (int64_t)json_integer_value(json_object_get(j, "run")),
		.timeout_ms = (uint64_t)json_integer_value(json_object_get(j, "timeout_ms")),
	};
	const char *why = "declined";
	int rc;

	if (!hooks || !hooks->ask)
		rc = tg_error_set(TG_ERR_UNAVAILABLE, "no session to ask");
	else
		rc = hooks->ask(hooks->ctx, &q, &why);
	return json_pack("{s:i, s:s, s:s}", "rc", rc, "why", why ? why : "declined", "msg",
			 rc < 0 ? tg_error_last()->message : "");
}

/* The worker's frames until its answer: hook requests of the operation in
 * progress are answered with the session's hooks (none: allowed). */
static json_t *read_answer(int fd, const tg_call_hooks *hooks)
{
	json_t *a;

	while ((a = frame_read(fd)) && json_object_get(a, "hook")) {
		char why[256] = "";
		int ok = 1;
		_cleanup_json_ json_t *r = NULL;

		if (strcmp(json_string_value(json_object_get(a, "hook")) ?: "", "event") == 0) {
			/* one way: the session's log and progress (notify.c) */
			tg_op_event ev = {
				json_string_value(json_object_get(a, "level")),
				json_string_value(json_object_get(a, "logger")),
				json_string_value(json_object_get(a, "message")),
				(unsigned)json_integer_value(json_object_get(a, "step")),
				(unsigned)json_integer_value(json_object_get(a, "total")),
			};
			if (hooks && hooks->event && ev.message)
				hooks->event(hooks->ctx, &ev);
			json_decref(a);
			continue;
		}
		if (strcmp(json_string_value(json_object_get(a, "hook")) ?: "", "ask") == 0) {
			r = answer_ask(a, hooks);
			json_decref(a);
			if (!r || tg_frame_write(fd, r) < 0)
				return NULL;
			continue;
		}
		if (hooks && hooks->attempt)
			ok = hooks->attempt(hooks->ctx,
					    json_string_value(json_object_get(a, "caller")) ?: "",
					    json_string_value(json_object_get(a, "callee")) ?: "",
					    why, sizeof(why));
		json_decref(a);
		r = json_pack("{s:b, s:s}", "ok", ok, "why", why);
		if (!r || tg_frame_write(fd, r) < 0)
			return NULL;
	}
	return a;
}

/* May q be sent again to another worker after one died while serving it?
 * Only the token check, which reads and changes nothing. */
static int retry_safe(const json_t *q)
{
	const char *op = json_string_value(json_object_get(q, "op"));

	return op && strcmp(op, "token") == 0;
}

int http_worker_call_hooked(tg_http *h, json_t *q /* stolen */, json_t **out,
			    const tg_call_hooks *hooks)
{
	json_t *a = NULL;
	unsigned i;
	int rc;

	if (out)
		*out = NULL;
	if (!q)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* the session wants the operation's events (logging, progress) */
	if (hooks && hooks->event && json_object_set_new(q, "events", json_true()) < 0) {
		json_decref(q);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	for (;;) {
		int sent;

		i = acquire(h);
		if (i == (unsigned)-1) {
			json_decref(q);
			return tg_error_set(TG_ERR_INTERNAL,
					    "every registry worker of the server died");
		}
		http_cancel_worker_take(h, i);
		sent = tg_frame_write(h->wfd[i], q) == 0;
		if (sent && (a = read_answer(h->wfd[i], hooks)))
			break;
		http_cancel_worker_done(h, i);
		release(h, i, 1);
		/* a worker found dead (killed, crashed) before it had the
		 * request, or while checking a token (it only reads), is out
		 * of the pool: the request goes to another; anything else it
		 * may have begun is not done twice */
		if (sent && !retry_safe(q)) {
			json_decref(q);
			return tg_error_set(TG_ERR_INTERNAL, "a registry worker of the server died");
		}
	}
	json_decref(q);
	http_cancel_worker_done(h, i);
	release(h, i, 0);
	rc = (int)json_integer_value(json_object_get(a, "rc"));
	/* the run's journal, for the session's next requestState */
	if (hooks && hooks->journaled)
		hooks->journaled(hooks->ctx, json_is_array(json_object_get(a, "journal"))
						     ? json_incref(json_object_get(a, "journal"))
						     : NULL);
	if (rc < 0) {
		tg_error_set(rc, "%s", json_string_value(json_object_get(a, "msg")));
	} else if (out) {
		json_t *o = json_object_get(a, "out");
		*out = json_is_null(o) ? NULL : json_incref(o);
	}
	json_decref(a);
	return rc;
}
