/*
 * registry/intent_sync.c: a call's intent made durable while its sandbox
 * is made ready (docs/RELIABILITY.md, "Call path performance").
 *
 * A call's intent must be durable before its tool runs, and nothing else
 * of the call needs it to be. With overlap on (tg_registry_set_overlap:
 * `toolgate serve` on stdio), reg_call_intent commits the intent to the
 * WAL and hands the durability barrier (commit.c's reg_sync_durable, the
 * fdatasync) to this handle's sync thread; the serving thread meanwhile
 * takes a pooled sandbox, lowers its limits and prepares stdin and the
 * program, and the sandbox calls the gate, reg_intent_gate(), before the
 * program can start: the gate waits for the barrier and fails the run
 * (the tool is never started; "was not run: its call could not be
 * recorded") when it failed. Every other use of the handle waits for the
 * barrier first (reg_begin, the handle's free), so nothing later can be
 * acknowledged ahead of the intent, and the anchor is advanced by the
 * waiting thread, as commit.c would after a synchronous barrier. While
 * the barrier is in flight the serving thread does not touch the
 * database: only the sync thread uses the connection (its WAL handle).
 * A handle used after fork() by another process, or one whose thread
 * cannot start, syncs synchronously as before.
 */
#include "reg_internal.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

struct reg_syncer {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pid_t owner;
	int want, done, stop, rc;
	tg_error err;
};

static void *sync_main(void *arg)
{
	tg_registry *r = arg;
	reg_syncer *y = r->syncer;

	pthread_mutex_lock(&y->mu);
	for (;;) {
		while (!y->want && !y->stop)
			pthread_cond_wait(&y->cv, &y->mu);
		if (y->stop)
			break;
		pthread_mutex_unlock(&y->mu);
		int rc = reg_sync_durable(r);
		tg_error e = *tg_error_last();
		pthread_mutex_lock(&y->mu);
		y->rc = rc;
		if (rc < 0)
			y->err = e;
		y->want = 0;
		y->done = 1;
		pthread_cond_broadcast(&y->cv);
	}
	pthread_mutex_unlock(&y->mu);
	return NULL;
}

void tg_registry_set_overlap(tg_registry *r, int on)
{
	r->overlap = on;
}

/* The intent's barrier, begun on the sync thread: 1 begun, 0 not (the
 * caller syncs itself). */
int reg_intent_sync_begin(tg_registry *r)
{
	reg_syncer *y = r->syncer;

	if (!r->overlap)
		return 0;
	if (y && y->owner != getpid())
		return 0; /* another process's thread */
	if (!y) {
		y = calloc(1, sizeof(*y));
		if (!y)
			return 0;
		pthread_mutex_init(&y->mu, NULL);
		pthread_cond_init(&y->cv, NULL);
		y->owner = getpid();
		r->syncer = y;
		if (pthread_create(&y->th, NULL, sync_main, r) != 0) {
			r->syncer = NULL;
			pthread_cond_destroy(&y->cv);
			pthread_mutex_destroy(&y->mu);
			free(y);
			r->overlap = 0;
			return 0;
		}
	}
	pthread_mutex_lock(&y->mu);
	y->want = 1;
	y->done = 0;
	y->rc = 0;
	pthread_cond_broadcast(&y->cv);
	pthread_mutex_unlock(&y->mu);
	r->intent_pending = 1;
	return 1;
}

void reg_intent_error(tg_registry *r)
{
	if (r->syncer && r->syncer->rc < 0)
		tg_error_set(r->syncer->err.code, "%s", r->syncer->err.message);
}

int reg_intent_sync_wait(tg_registry *r)
{
	reg_syncer *y = r->syncer;
	int rc;

	if (!r->intent_pending) {
		if (!r->intent_failed)
			return 0;
		reg_intent_error(r);
		return tg_error_last()->code;
	}
	pthread_mutex_lock(&y->mu);
	while (!y->done)
		pthread_cond_wait(&y->cv, &y->mu);
	rc = y->rc;
	pthread_mutex_unlock(&y->mu);
	r->intent_pending = 0;
	tg_prof_mark(TG_PROF_INTENT_SYNC);
	if (rc < 0) {
		/* in the WAL, not known to be durable: nothing acts on it */
		r->intent_failed = 1;
		r->audit_seq_pending = 0;
		return tg_error_set(y->err.code, "%s", y->err.message);
	}
	reg_commit_durable_done(r);
	return 0;
}

int reg_intent_gate(void *ctx)
{
	tg_registry *r = ctx;

	if (reg_intent_sync_wait(r) < 0)
		return tg_error_last()->code;
	if (r->intent_failed)
		return tg_error_set(TG_ERR_IO, "the call's intent could not be made durable");
	return 0;
}

void reg_syncer_free(tg_registry *r)
{
	reg_syncer *y = r->syncer;

	if (!y)
		return;
	if (y->owner == getpid()) {
		if (r->intent_pending && reg_intent_sync_wait(r) < 0)
			tg_error_clear();
		pthread_mutex_lock(&y->mu);
		y->stop = 1;
		pthread_cond_broadcast(&y->cv);
		pthread_mutex_unlock(&y->mu);
		pthread_join(y->th, NULL);
		pthread_cond_destroy(&y->cv);
		pthread_mutex_destroy(&y->mu);
	}
	free(y);
	r->syncer = NULL;
}
