/*
 * common/prof.c: the call profile, a measuring aid left off by default.
 * `toolgate serve` calls tg_prof_init(); when $TG_CALL_PROFILE names a file
 * then, every stage of a tools/call (common.h lists them: the request
 * read, the registry lookup, the intent's commit and its fdatasync, the
 * pool's take-out and hand-over, the program's exit, the outcome's commit
 * and fdatasync, the reply written) is stamped on CLOCK_MONOTONIC by
 * whichever thread reaches it, and other threads report spans of their own
 * work (the pool's refill thread: "make" an entry, "release" a served one).
 * tg_prof_flush(), after the reply is written, appends one line per call:
 *
 *   call us read=0 parsed=41 ... written=5312 | make=-2400..-1100 release=...
 *
 * every stamp and span in microseconds from the request's read (a span
 * before it is negative: it ran between the calls). bench/mcp/profile.py
 * turns the lines into medians per stage and the refill's overlap with the
 * calls. Off, tg_prof_mark() is one load of tg_prof_on and nothing else.
 */
#include "common/common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define SPAN_MAX 64

int tg_prof_on;

static FILE *out;
static uint64_t stamp[TG_PROF_N], cpu[TG_PROF_N]; /* cpu: the marking thread's CPU time */
static pthread_mutex_t span_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { const char *what; uint64_t t0, t1; } span[SPAN_MAX];
static int nspan;
static long last_minflt;

static const char *const stage_name[TG_PROF_N] = {
	"read", "parsed", "call", "lookup", "checked", "intent_commit", "intent_sync",
	"slot", "pool_taken", "handed", "setup", "pipes_eof", "reaped", "run_done",
	"result", "outcome_commit", "outcome_sync", "reply", "written",
};

void tg_prof_init(void)
{
	const char *path = getenv("TG_CALL_PROFILE");

	if (!path || !path[0] || out)
		return;
	out = fopen(path, "ae");
	if (!out)
		return;
	setvbuf(out, NULL, _IOLBF, 0);
	tg_prof_on = 1;
}

uint64_t tg_prof_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void tg_prof_mark_(int stage)
{
	struct timespec ts;

	if (stage < 0 || stage >= TG_PROF_N)
		return;
	__atomic_store_n(&stamp[stage], tg_prof_ns(), __ATOMIC_RELAXED);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	__atomic_store_n(&cpu[stage], (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
			 __ATOMIC_RELAXED);
}

void tg_prof_span(const char *what, uint64_t t0_ns, uint64_t t1_ns)
{
	if (!tg_prof_on)
		return;
	pthread_mutex_lock(&span_mu);
	if (nspan < SPAN_MAX) {
		span[nspan].what = what;
		span[nspan].t0 = t0_ns;
		span[nspan].t1 = t1_ns;
		nspan++;
	}
	pthread_mutex_unlock(&span_mu);
}

static long long rel_us(uint64_t t, uint64_t base)
{
	return (long long)(int64_t)(t - base) / 1000;
}

void tg_prof_flush(void)
{
	uint64_t s[TG_PROF_N], c[TG_PROF_N], base;
	int i;

	if (!tg_prof_on)
		return;
	for (i = 0; i < TG_PROF_N; i++) {
		s[i] = __atomic_exchange_n(&stamp[i], 0, __ATOMIC_RELAXED);
		c[i] = __atomic_load_n(&cpu[i], __ATOMIC_RELAXED);
	}
	if (!s[TG_PROF_LOOKUP] || !s[TG_PROF_WRITTEN])
		return; /* not a tools/call of a registered tool: spans stay */
	base = s[TG_PROF_READ] && s[TG_PROF_READ] <= s[TG_PROF_LOOKUP] ? s[TG_PROF_READ]
								      : s[TG_PROF_PARSED];
	fputs("call us", out);
	for (i = 0; i < TG_PROF_N; i++)
		if (s[i])
			fprintf(out, " %s=%lld", stage_name[i], rel_us(s[i], base));
	/* the serving thread's CPU time: the whole call, and in the two
	 * fdatasyncs (the thread that stamps read, the syncs and written) */
	if (s[TG_PROF_READ]) {
		fprintf(out, " cpu_total=%lld", rel_us(c[TG_PROF_WRITTEN], c[TG_PROF_READ]));
		for (i = 0; i < TG_PROF_N; i++) /* setup and reaped: the tracer's */
			if (s[i] && i != TG_PROF_SETUP && i != TG_PROF_REAPED)
				fprintf(out, " c_%s=%lld", stage_name[i],
					rel_us(c[i], c[TG_PROF_READ]));
	}
	if (s[TG_PROF_INTENT_SYNC])
		fprintf(out, " cpu_intent_sync=%lld",
			rel_us(c[TG_PROF_INTENT_SYNC], c[TG_PROF_INTENT_COMMIT]));
	if (s[TG_PROF_OUTCOME_SYNC])
		fprintf(out, " cpu_outcome_sync=%lld",
			rel_us(c[TG_PROF_OUTCOME_SYNC], c[TG_PROF_OUTCOME_COMMIT]));
	{
		/* page faults of the whole process since the last call's line */
		struct rusage ru;
		if (getrusage(RUSAGE_SELF, &ru) == 0) {
			fprintf(out, " minflt=%ld", ru.ru_minflt - last_minflt);
			last_minflt = ru.ru_minflt;
		}
	}
	fputs(" |", out);
	pthread_mutex_lock(&span_mu);
	for (i = 0; i < nspan; i++)
		fprintf(out, " %s=%lld..%lld", span[i].what, rel_us(span[i].t0, base),
			rel_us(span[i].t1, base));
	nspan = 0;
	pthread_mutex_unlock(&span_mu);
	fputc('\n', out);
}
