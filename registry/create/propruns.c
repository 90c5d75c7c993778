/*
 * registry/create/propruns.c: the generated inputs of a property test run
 * concurrently (docs/REGISTRY.md, "Property tests"). A few worker threads
 * (reg_propruns_workers: at most the free run slots, the cores and
 * PROPRUNS_MAX; TOOLGATE_PROPTEST_WORKERS sets the count for tests) each
 * take the next input and run it with tg_sandbox_run in one of the host's
 * run slots (exec/slots.c reg_run_slot_take_in), with the sandbox options
 * the main thread prepared once (exec/run_tool.c reg_run_prepare: the
 * manifest's limits, the backend, the workspace) and the input's JSON
 * dumped beforehand. The workers touch no registry handle (its SQLite
 * connection is not thread-safe) and no json_t: the main thread takes the
 * results in input order (reg_propruns_wait) and turns each into the call
 * contract (reg_run_outcome) itself, so the first failure, its shrinking
 * and the report are those of running the inputs one after another. An
 * input is not started once the deadline has passed, the request is
 * cancelled, or the main thread has stopped the runs (a failure found, an
 * error); reg_propruns_stop joins the workers and frees what is left.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "registry/create/create.h"

#define PROPRUNS_MAX 16

enum { ST_PENDING = 0, ST_DONE, ST_BUDGET, ST_CANCELLED, ST_ERROR };

typedef struct pr_item {
	char *in; /* the input's JSON */
	int state;
	tg_run_result *rr;
	int code; /* ST_ERROR */
	char *msg;
} pr_item;

struct reg_propruns {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	tg_sandbox_opts so;
	reg_run_slots slots;
	uint64_t deadline;
	pr_item *items;
	size_t n, next;
	int stop;
	unsigned nth;
	pthread_t th[PROPRUNS_MAX];
};

unsigned reg_propruns_workers(tg_registry *r, size_t inputs)
{
	const char *env = getenv("TOOLGATE_PROPTEST_WORKERS");
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	/* one per core: more only adds CPU bursts to what else the host runs
	 * (an analysis beside them timed out at 4 on 2 cores) */
	unsigned n = cores > 0 ? (unsigned)cores : 2u;

	if (env && env[0]) {
		long v = strtol(env, NULL, 10);
		n = v < 1 ? 1u : v > PROPRUNS_MAX ? PROPRUNS_MAX : (unsigned)v;
	} else if (r->cfg.max_concurrent_runs) {
		uint32_t busy = reg_slots_busy(r, 0), cap = r->cfg.max_concurrent_runs;
		uint32_t free_slots = busy < cap ? cap - busy : 1;
		if (free_slots < n)
			n = free_slots;
	}
	if (n > PROPRUNS_MAX)
		n = PROPRUNS_MAX;
	if (n > inputs)
		n = (unsigned)inputs;
	return n ? n : 1;
}

/* Run item i (no lock held): its outcome in *it. */
static void run_item(struct reg_propruns *pr, pr_item *it)
{
	tg_sandbox_opts so = pr->so;
	tg_run_result *rr = NULL;
	int slot = -1, rc;

	so.stdin_data = it->in;
	so.stdin_len = strlen(it->in);
	if (tg_cancel_fired(so.cancel)) {
		it->state = ST_CANCELLED;
		return;
	}
	if (tg_now_ms() >= pr->deadline) {
		it->state = ST_BUDGET;
		return;
	}
	rc = reg_run_slot_take_in(&pr->slots, so.timeout_ms, &slot);
	if (rc >= 0) {
		rc = tg_sandbox_run(&rr, &so);
		reg_slot_give(slot);
		if (rc < 0)
			tg_error_prefix("sandbox");
	}
	if (rc < 0) {
		it->code = rc;
		it->msg = strdup(tg_error_last()->message);
		tg_error_clear();
		it->state = ST_ERROR;
		return;
	}
	it->rr = rr;
	it->state = ST_DONE;
}

static void *worker(void *arg)
{
	struct reg_propruns *pr = arg;

	for (;;) {
		pr_item done;
		size_t i;

		pthread_mutex_lock(&pr->mu);
		if (pr->stop || pr->next >= pr->n) {
			pthread_mutex_unlock(&pr->mu);
			return NULL;
		}
		i = pr->next++;
		done = pr->items[i];
		pthread_mutex_unlock(&pr->mu);
		run_item(pr, &done);
		pthread_mutex_lock(&pr->mu);
		pr->items[i] = done;
		pthread_cond_broadcast(&pr->cv);
		pthread_mutex_unlock(&pr->mu);
	}
}

int reg_propruns_start(reg_propruns **out, tg_registry *r, const tg_sandbox_opts *so,
		       const json_t *inputs, uint64_t deadline, unsigned workers)
{
	struct reg_propruns *pr = calloc(1, sizeof(*pr));
	size_t i;
	int rc;

	*out = NULL;
	if (!pr)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	pthread_mutex_init(&pr->mu, NULL);
	pthread_cond_init(&pr->cv, NULL);
	pr->so = *so;
	pr->deadline = deadline;
	pr->n = json_array_size(inputs);
	*out = pr; /* reg_propruns_stop frees it from here on */
	if ((rc = reg_run_slots_get(&pr->slots, r)) < 0)
		return rc;
	if (pr->n && !(pr->items = calloc(pr->n, sizeof(*pr->items))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < pr->n; i++) {
		if (!(pr->items[i].in = tg_json_dump(json_array_get(inputs, i))))
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (workers > PROPRUNS_MAX)
		workers = PROPRUNS_MAX;
	for (pr->nth = 0; pr->nth < workers; pr->nth++) {
		if (pthread_create(&pr->th[pr->nth], NULL, worker, pr) != 0)
			break;
	}
	if (pr->nth == 0)
		return tg_error_set(TG_ERR_IO, "property tests: no worker thread could start");
	return 0;
}

int reg_propruns_wait(reg_propruns *pr, size_t i, tg_run_result **rr)
{
	pr_item *it;
	int st;

	*rr = NULL;
	if (i >= pr->n)
		return tg_error_set(TG_ERR_INVALID, "property tests: no input %zu", i);
	pthread_mutex_lock(&pr->mu);
	while (pr->items[i].state == ST_PENDING)
		pthread_cond_wait(&pr->cv, &pr->mu);
	it = &pr->items[i];
	st = it->state;
	if (st == ST_DONE) {
		*rr = it->rr;
		it->rr = NULL;
	}
	pthread_mutex_unlock(&pr->mu);
	if (st == ST_ERROR)
		return tg_error_set(it->code, "%s", it->msg ? it->msg : "out of memory");
	return st == ST_DONE ? 0 : st == ST_BUDGET ? REG_PROPRUN_BUDGET : REG_PROPRUN_CANCELLED;
}

void reg_propruns_stop(reg_propruns *pr)
{
	size_t i;

	if (!pr)
		return;
	pthread_mutex_lock(&pr->mu);
	pr->stop = 1;
	pthread_mutex_unlock(&pr->mu);
	for (unsigned t = 0; t < pr->nth; t++)
		pthread_join(pr->th[t], NULL);
	for (i = 0; pr->items && i < pr->n; i++) {
		free(pr->items[i].in);
		free(pr->items[i].msg);
		tg_run_result_free(pr->items[i].rr);
	}
	free(pr->items);
	free(pr->slots.dir);
	pthread_cond_destroy(&pr->cv);
	pthread_mutex_destroy(&pr->mu);
	free(pr);
}
