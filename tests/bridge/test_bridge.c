/*
 * tests/bridge/test_bridge.c: the serving side of the tool bridge against
 * real programs in the real sandbox. A temporary home holds the registered
 * word_count (examples/); progs/bridge_prog.c, which talks to fd 3 directly,
 * runs through reg_bridge_run() with a hand-made reg_bridge (capabilities,
 * call cap, call chain, deadline), and each case asserts the exact outcome:
 * the reply codes the program saw, the run's reason, the attempts counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "registry/exec/exec.h"
#include "test_support.h"

static char *home;
static tg_registry *reg;

static int setup(void **state)
{
	json_t *m = NULL, *res = NULL;
	char *src = NULL;
	size_t len = 0;
	tg_submission sub;

	(void)state;
	home = tgt_home_make("tg_bridge");
	assert_int_equal(tg_registry_open(&reg, home, 1), 0);
	assert_int_equal(tg_json_parse_file(&m, WORD_COUNT_JSON, NULL), 0);
	assert_int_equal(tg_file_read(&src, &len, WORD_COUNT_SRC, 1 << 20), 0);
	sub.manifest = m;
	sub.source = src;
	sub.source_len = len;
	assert_int_equal(tg_registry_create(&res, reg, &sub, NULL), 0);
	assert_string_equal(json_string_value(json_object_get(res, "status")), "active");
	json_decref(res);
	json_decref(m);
	free(src);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tg_registry_free(reg);
	tgt_home_remove(home);
	return 0;
}

/* Run bridge_prog MODE with b serving fd 3. */
static tg_run_result *run(reg_bridge *b, const char *mode, uint32_t timeout_ms)
{
	const char *argv[] = { "bridge_prog", mode, NULL };
	tg_sandbox_opts so = { 0 };
	tg_run_result *rr = NULL;

	so.program = BRIDGE_PROG;
	so.argv = argv;
	so.timeout_ms = timeout_ms;
	if (!b->deadline_ms)
		b->deadline_ms = tg_now_ms() + timeout_ms;
	assert_int_equal(reg_bridge_run(&rr, b, &so), 0);
	return rr;
}

static json_t *caps_of(const char *text)
{
	json_t *c = json_loads(text, 0, NULL);
	assert_non_null(c);
	return c;
}

static void bridge_init(reg_bridge *b, json_t *caps, const char *limits, const reg_bridge *parent)
{
	json_t *l = json_loads(limits, 0, NULL);
	assert_non_null(l);
	reg_bridge_init(b, reg, NULL, "attacker", 1, caps, l, parent);
	json_decref(l);
}

/* The cap counts every attempt: undeclared (denied) and failed calls too;
 * the 5th call of a run capped at 4 is refused, and so is the 6th. */
static void test_cap_counts_failures(void **state)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&b, caps, "{\"max_tool_calls\":4}", NULL);
	assert_int_equal(b.max_calls, 4);
	rr = run(&b, "cap", 5000);
	assert_int_equal(rr->reason, TG_REASON_EXITED);
	assert_int_equal(rr->exit_code, 0);
	assert_string_equal(rr->out, "[\"denied\",\"tool_error\",\"ok\",\"ok\",\"limit\",\"limit\"]\n");
	assert_int_equal(b.attempts, 6);
	assert_int_equal(b.ok, 2);
	assert_int_equal(b.protocol_error, 0);
	tg_run_result_free(rr);
	json_decref(caps);
}

/* Concurrent requests (written before any reply is read): one request is
 * in flight at a time, so they are served in order, each counted. */
static void test_pipelined(void **state)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&b, caps, "{}", NULL);
	rr = run(&b, "pipelined", 5000);
	assert_int_equal(rr->reason, TG_REASON_EXITED);
	assert_int_equal(rr->exit_code, 0);
	assert_string_equal(rr->out, "[\"ok:1\",\"tool_error:2\",\"ok:3\"]\n");
	assert_int_equal(b.attempts, 3);
	assert_int_equal(b.ok, 2);
	assert_int_equal(b.protocol_error, 0);
	tg_run_result_free(rr);
	json_decref(caps);
}

/* Nothing declared: the call is denied (host tools alike). */
static void test_undeclared(void **state)
{
	json_t *caps = caps_of("[\"tools:stats\"]");
	reg_bridge b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&b, caps, "{}", NULL);
	assert_int_equal(b.max_calls, REG_BRIDGE_DEF_CALLS);
	rr = run(&b, "one", 5000);
	assert_int_equal(rr->reason, TG_REASON_EXITED);
	assert_string_equal(rr->out, "[\"denied\"]\n");
	assert_int_equal(b.attempts, 1);
	tg_run_result_free(rr);
	json_decref(caps);
}

/* word_count is already running higher up the chain: a cycle. */
static void test_cycle(void **state)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge top, b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&top, caps, "{}", NULL);
	snprintf(top.name, sizeof(top.name), "word_count");
	top.deadline_ms = tg_now_ms() + 10000;
	bridge_init(&b, caps, "{}", &top);
	rr = run(&b, "one", 5000);
	assert_string_equal(rr->out, "[\"cycle\"]\n");
	assert_int_equal(b.attempts, 1);
	tg_run_result_free(rr);
	json_decref(caps);
}

/* A run at depth 2 (the default cap) may not call further. */
static void test_depth(void **state)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge p0, p1, b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&p0, caps, "{}", NULL);
	snprintf(p0.name, sizeof(p0.name), "first");
	p0.deadline_ms = tg_now_ms() + 10000;
	bridge_init(&p1, caps, "{}", &p0);
	snprintf(p1.name, sizeof(p1.name), "second");
	bridge_init(&b, caps, "{}", &p1);
	assert_int_equal(b.depth, 2);
	rr = run(&b, "one", 5000);
	assert_string_equal(rr->out, "[\"depth\"]\n");
	tg_run_result_free(rr);
	/* one level up the same call is served */
	bridge_init(&b, caps, "{}", &p0);
	rr = run(&b, "one", 5000);
	assert_string_equal(rr->out, "[\"ok\"]\n");
	tg_run_result_free(rr);
	json_decref(caps);
}

/* The run's deadline has passed: a call is refused with "timeout". */
static void test_after_deadline(void **state)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&b, caps, "{}", NULL);
	b.deadline_ms = tg_now_ms() - 1;
	rr = run(&b, "one", 5000);
	assert_int_equal(rr->reason, TG_REASON_EXITED);
	assert_string_equal(rr->out, "[\"timeout\"]\n");
	tg_run_result_free(rr);
	json_decref(caps);
}

static void expect_protocol(const char *mode)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge b;
	tg_run_result *rr;

	bridge_init(&b, caps, "{}", NULL);
	rr = run(&b, mode, 10000);
	/* killed long before its 10 s timeout: the program spins forever */
	assert_int_equal(rr->reason, TG_REASON_BRIDGE_PROTOCOL);
	assert_string_equal(tg_reason_name(rr->reason), "bridge_protocol");
	assert_int_equal(rr->exit_code, -1);
	assert_true(rr->wall_ms < 8000);
	assert_int_equal(b.protocol_error, 1);
	assert_int_equal(b.ok, 0);
	tg_run_result_free(rr);
	json_decref(caps);
}

static void test_malformed(void **state) { (void)state; expect_protocol("malformed"); }
static void test_oversized(void **state) { (void)state; expect_protocol("oversized"); }
static void test_garbage(void **state) { (void)state; expect_protocol("garbage"); }

/* Thousands of requests, no reply read: the server does not hang; the run
 * ends at its timeout and every request it read counted. */
static void test_never_reads(void **state)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&b, caps, "{\"max_tool_calls\":4}", NULL);
	rr = run(&b, "noread", 1500);
	assert_int_equal(rr->reason, TG_REASON_TIMEOUT);
	assert_true(b.attempts > 4);
	assert_int_equal(b.ok, 0);
	assert_int_equal(b.protocol_error, 0);
	tg_run_result_free(rr);
	json_decref(caps);
}

/* fd 3 closed and a file opened in its place: the frame goes to the file,
 * nothing reaches toolgate, the run ends normally. */
static void test_reopen(void **state)
{
	json_t *caps = caps_of("[\"tools:word_count\"]");
	reg_bridge b;
	tg_run_result *rr;

	(void)state;
	bridge_init(&b, caps, "{}", NULL);
	rr = run(&b, "reopen", 5000);
	assert_int_equal(rr->reason, TG_REASON_EXITED);
	assert_string_equal(rr->out, "{\"fd\":3}\n");
	assert_int_equal(b.attempts, 0);
	tg_run_result_free(rr);
	json_decref(caps);
}

/* Without a bridge fd 3 is closed: the program's first write fails. */
static void test_no_bridge_fd3_closed(void **state)
{
	const char *argv[] = { "bridge_prog", "one", NULL };
	tg_sandbox_opts so = { 0 };
	tg_run_result *rr = NULL;

	(void)state;
	so.program = BRIDGE_PROG;
	so.argv = argv;
	assert_int_equal(tg_sandbox_run(&rr, &so), 0);
	assert_int_equal(rr->reason, TG_REASON_EXITED);
	assert_int_equal(rr->exit_code, 3); /* put(): write(3) failed */
	tg_run_result_free(rr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_counts_failures),
		cmocka_unit_test(test_undeclared),
		cmocka_unit_test(test_pipelined),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_after_deadline),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_never_reads),
		cmocka_unit_test(test_reopen),
		cmocka_unit_test(test_no_bridge_fd3_closed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
