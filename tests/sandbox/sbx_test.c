/*
 * tests/sandbox/sbx_test.c: the state sbx_test.h's helpers share across the
 * files of one sandbox test program: whether the runs are pooled
 * (TG_TEST_SANDBOX_POOL=N, the *_pooled ctest entries) or go to the gVisor
 * backend (TG_TEST_SANDBOX_BACKEND=gvisor, the *_gvisor entries), and the
 * pool's start from that variable. Linked into every program that includes
 * sbx_test.h.
 */
#include "sandbox/internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"

int sbx_pool_on;
int sbx_gvisor_on;

void sbx_test_pool_init(void)
{
	const char *v = getenv("TG_TEST_SANDBOX_POOL"), *b = getenv("TG_TEST_SANDBOX_BACKEND");

	if (b && strcmp(b, "gvisor") == 0) {
		uint64_t ms = 0;
		char plat[8];
		if (tg_sandbox_gvisor_available(&ms, plat, sizeof(plat)) < 0) {
			printf("SKIP: gVisor cannot run here: %s\n", tg_error_last()->message);
			exit(77);
		}
		sbx_gvisor_on = 1;
	}
	if (!v || atoi(v) <= 0)
		return;
	if (tg_sandbox_pool_start((unsigned)atoi(v), &sbx_pool_ceilings) < 0) {
		fprintf(stderr, "pool: %s\n", tg_error_last()->message);
		exit(1);
	}
	sbx_pool_on = atoi(v);
}

struct pair_run {
	const char *argv[4];
	const char *program;
	tg_run_result *r;
	int rc;
};

static void *pair_main(void *arg)
{
	struct pair_run *p = arg;
	tg_sandbox_opts o;

	memset(&o, 0, sizeof(o));
	o.program = p->program;
	o.argv = p->argv;
	o.timeout_ms = 20000;
	p->rc = tg_sandbox_run(&p->r, &o);
	return NULL;
}

/* The start and end on the last line of a run's stderr. */
static void span(const tg_run_result *r, long long *t0, long long *t1)
{
	const char *l = r->err, *nl;

	while ((nl = strchr(l, '\n')) && nl[1])
		l = nl + 1;
	assert_int_equal(sscanf(l, "%lld %lld", t0, t1), 2);
}

void sbx_run_pair(const char *program, const char *name, const char *arg2, tg_run_result **ra,
		  tg_run_result **rb)
{
	struct pair_run a = { { name, "a", arg2, NULL }, program, NULL, 0 };
	struct pair_run b = { { name, "b", arg2, NULL }, program, NULL, 0 };
	long long a0, a1, b0, b1;
	pthread_t ta, tb;

	assert_int_equal(pthread_create(&ta, NULL, pair_main, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, pair_main, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	assert_int_equal(a.rc, 0);
	assert_int_equal(b.rc, 0);
	span(a.r, &a0, &a1);
	span(b.r, &b0, &b1);
	if (!(a0 < b1 && b0 < a1))
		fail_msg("the two runs did not overlap: a %lld-%lld, b %lld-%lld", a0, a1, b0, b1);
	*ra = a.r;
	*rb = b.r;
}
