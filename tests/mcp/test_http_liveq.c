/*
 * tests/mcp/test_http_liveq.c: unit tests of mcp/http_liveq.c, the bounded
 * queue of a live SSE answer over HTTP: lines become SSE events in order;
 * past the byte limit a progress is coalesced into the latest (written
 * once the reader catches up, before the answer), another notification is
 * dropped and counted, and the answer is always queued; a reader that never
 * reads keeps the queue within the limit whatever the run sends; a reader
 * taking a few bytes at a time gets the exact text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "mcp/http_internal.h"

static void push(http_liveq *q, const char *line, int must)
{
	http_liveq_push(q, line, strlen(line), must);
}

static char *progress(unsigned step)
{
	static char line[128];

	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
		 "\"params\":{\"progressToken\":\"t\",\"progress\":%u}}",
		 step);
	return line;
}

#define LOG "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"x\"}}"
#define ANSWER "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"
#define EV(x) "event: message\ndata: " x "\n\n"

/* Everything pending, taken in pieces of at most chunk bytes. */
static void take_all(http_liveq *q, char *out, size_t cap, size_t chunk)
{
	size_t len = 0, n;

	while ((n = http_liveq_take(q, out + len, chunk < cap - len - 1 ? chunk : cap - len - 1)))
		len += n;
	out[len] = '\0';
}

static void test_in_order(void **state)
{
	http_liveq q;
	char out[4096];
	char expect[4096];

	(void)state;
	http_liveq_init(&q, 1 << 16);
	assert_int_equal(http_liveq_take(&q, out, sizeof(out)), 0);
	push(&q, progress(0), 0);
	push(&q, LOG, 0);
	push(&q, progress(1), 0);
	push(&q, ANSWER, 1);
	take_all(&q, out, sizeof(out), 7); /* a reader taking 7 bytes at a time */
	snprintf(expect, sizeof(expect), "event: message\ndata: %s\n\n" EV(LOG), progress(0));
	snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect),
		 "event: message\ndata: %s\n\n" EV(ANSWER), progress(1));
	assert_string_equal(out, expect);
	assert_int_equal(q.dropped, 0);
	assert_int_equal(http_liveq_pending(&q), 0);
	http_liveq_free(&q);
}

static void test_limit_coalesces_progress(void **state)
{
	http_liveq q;
	char out[4096];
	char expect[4096];
	size_t one = strlen(EV(LOG));

	(void)state;
	/* room for two log events, not three */
	http_liveq_init(&q, 2 * one + one / 2);
	push(&q, LOG, 0);
	push(&q, LOG, 0);
	push(&q, LOG, 0);         /* past the limit: dropped */
	push(&q, progress(3), 0); /* held */
	push(&q, progress(4), 0); /* replaces 3 */
	push(&q, LOG, 0);         /* dropped */
	assert_int_equal(q.dropped, 2);
	assert_int_equal(http_liveq_pending(&q), 2 * one);
	/* the reader catches up: the latest step comes next */
	take_all(&q, out, sizeof(out), sizeof(out));
	snprintf(expect, sizeof(expect), EV(LOG) EV(LOG) "event: message\ndata: %s\n\n",
		 progress(4));
	assert_string_equal(out, expect);
	/* the held step goes before the answer, which passes the limit */
	push(&q, LOG, 0);
	push(&q, LOG, 0);
	push(&q, progress(5), 0);
	push(&q, progress(6), 0);
	push(&q, ANSWER, 1);
	take_all(&q, out, sizeof(out), 5);
	snprintf(expect, sizeof(expect), EV(LOG) EV(LOG) "event: message\ndata: %s\n\n" EV(ANSWER),
		 progress(6));
	assert_string_equal(out, expect);
	assert_int_equal(q.dropped, 2);
	http_liveq_free(&q);
}

static void test_reader_gone_stays_bounded(void **state)
{
	http_liveq q;
	unsigned i;
	char out[256];

	(void)state;
	http_liveq_init(&q, 4096);
	for (i = 0; i < 100000; i++) {
		push(&q, progress(i), 0);
		push(&q, LOG, 0);
		assert_true(http_liveq_pending(&q) <= 4096);
	}
	assert_non_null(q.held);
	assert_string_equal(q.held, progress(99999));
	assert_true(q.dropped > 99000);
	/* the answer still goes in, after the held step */
	push(&q, ANSWER, 1);
	assert_null(q.held);
	assert_true(http_liveq_pending(&q) <= 4096 + 256);
	/* the reader takes it all */
	while (http_liveq_take(&q, out, sizeof(out)))
		;
	assert_int_equal(http_liveq_pending(&q), 0);
	http_liveq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_limit_coalesces_progress),
		cmocka_unit_test(test_reader_gone_stays_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
