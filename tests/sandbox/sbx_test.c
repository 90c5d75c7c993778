/*
 * tests/sandbox/sbx_test.c: the state sbx_test.h's helpers share across the
 * files of one sandbox test program: whether the runs are pooled
 * (TG_TEST_SANDBOX_POOL=N, the *_pooled ctest entries) or go to the gVisor
 * backend (TG_TEST_SANDBOX_BACKEND=gvisor, the *_gvisor entries), and the
 * pool's start from that variable. Linked into every program that includes
 * sbx_test.h.
 */
#include "sandbox/internal.h"

#include <signal.h>
#include <stdarg.h>
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
