/*
 * tests/registry/test_replay.c: the journaled replay of a run's bridged
 * calls after an MCP input_required (registry/replay.c, docs/BRIDGE.md
 * "Replay after input_required"), on a real registry over a throw-away
 * home, driven the way registry/bridge.c drives it (reg_replay_next, then
 * reg_replay_answer or the call and reg_replay_record; the hooks set and
 * cleared by tg_registry_set_call_hooks).
 *  - recording: indexes 0, 1, 2... in the order the calls start; each
 *    answered call's entry (callee, version, canonical args digest, depth,
 *    outcome, the reply without its id); nothing kept once a call was
 *    asked with input_required; clearing the hooks hands the journal over;
 *  - answering: matching entries answer in order with their reply and the
 *    request's id and audit "replayed"; the first entry that differs in
 *    args, version (a registered callee's active commit) or callee ends
 *    replay mode (audit bridge_replay_diverged) and later calls, matching
 *    or not, are not answered;
 *  - span: a registered callee's entry covers its own calls, so the next
 *    call is answered from the entry past them;
 *  - caps: past the root run's max_tool_calls entries or
 *    REG_REPLAY_MAX_BYTES the journal is dropped and no call may ask;
 *  - storage: replay_journals rows round-trip, a changed row or a wrong
 *    digest is "journal altered", a removed or already taken row "journal
 *    missing", and the sweep removes the expired rows only;
 *  - expiry: a sealed state's and its journal's are wall-clock
 *    milliseconds (a reboot restarts CLOCK_MONOTONIC), and a state past
 *    it is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "registry/exec/exec.h"
#include "test_support.h"

typedef struct got {
	int calls;
	json_t *journal;
} got;

static void on_journal(void *ctx, json_t *journal)
{
	got *g = ctx;

	g->calls++;
	json_decref(g->journal);
	g->journal = journal;
}

static tg_registry *open_home(const char *prefix)
{
	char *home = tgt_home_make(prefix);
	tg_registry *r = NULL;

	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	free(home);
	return r;
}

static void close_home(tg_registry *r)
{
	char *home = strdup(r->home);

	tg_registry_free(r);
	assert_non_null(home);
	tgt_home_remove(home);
}

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	if (!j)
		fail_msg("bad JSON in the test: %s: %s", err.text, text);
	return j;
}

static void expect_json(const json_t *got_j, const json_t *want)
{
	if (!json_equal(got_j, want)) {
		_cleanup_free_ char *g = got_j ? tg_json_dump(got_j) : strdup("null");
		_cleanup_free_ char *w = tg_json_dump(want);
		fail_msg("got %s\nwant %s", g, w);
	}
}

static int64_t audit_head(tg_registry *r)
{
	return tgt_sql_int(r->home, "SELECT coalesce(max(seq), 0) FROM audit");
}

/* The audit entries past seq after: [{"actor","event","tool","details"}]. */
static json_t *audit_since(tg_registry *r, int64_t after)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	json_t *all = json_array();
	int rc;

	assert_int_equal(reg_prepare(r, &st, "SELECT actor, event, tool, details FROM audit "
					     "WHERE seq > ?1 ORDER BY seq"), 0);
	sqlite3_bind_int64(st, 1, after);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *tool = (const char *)sqlite3_column_text(st, 2);
		json_t *e = json_pack("{s:s, s:s, s:s?, s:o}", "actor", sqlite3_column_text(st, 0),
				      "event", sqlite3_column_text(st, 1), "tool", tool,
				      "details", parse((const char *)sqlite3_column_text(st, 3)));
		assert_non_null(e);
		json_array_append_new(all, e);
	}
	assert_int_equal(rc, SQLITE_DONE);
	return all;
}

static void digest_of(char out[65], const char *args_text)
{
	json_t *a = parse(args_text);

	reg_replay_args_digest(out, a);
	json_decref(a);
}

/* A registered tool NAME whose active version's commit is commit (rows as
 * the pipeline leaves them, enough for reg_replay_callee_version). */
static void put_tool(tg_registry *r, const char *name, unsigned version, const char *commit)
{
	char sql[1024];

	snprintf(sql, sizeof(sql),
		 "INSERT OR IGNORE INTO tools(name, active_version, created_at) VALUES('%s', 0, 1);"
		 "INSERT INTO versions(tool_id, version, status, verdict, commit_id, content_hash, "
		 "created_at, description, input_schema, capabilities, limits, analysis, tests) "
		 "SELECT id, %u, 'active', 'pass', '%s', 'h', 1, 'd', '{}', '[]', '{}', '{}', '[]' "
		 "FROM tools WHERE name = '%s';"
		 "UPDATE tools SET active_version = %u WHERE name = '%s';",
		 name, version, commit, name, version, name);
	tgt_sql(r->home, sql);
}

/* One journal entry as replay.c records it; reply is the frame's JSON
 * without its id. */
static json_t *entry(int i, int span, const char *callee, const char *ver, const char *digest,
		     int depth, const char *outcome, const char *reply)
{
	json_t *e = json_pack("{s:i, s:i, s:s, s:s, s:s, s:i, s:s, s:o}", "i", i, "span", span,
			      "callee", callee, "callee_version", ver, "args_sha256", digest,
			      "depth", depth, "outcome", outcome, "reply", parse(reply));

	assert_non_null(e);
	return e;
}

/* The next call starts with index idx and the journal answers it with
 * want (JSON text; NULL: not answered). */
static void expect_answer(reg_bridge *b, int64_t idx, const char *tool, const char *ver,
			  const char *digest, json_int_t id, const char *want)
{
	json_t *reply, *w;

	assert_int_equal(reg_replay_next(b->r), idx);
	reply = reg_replay_answer(b, idx, tool, ver, digest, id);
	if (!want) {
		assert_null(reply);
		return;
	}
	w = parse(want);
	expect_json(reply, w);
	json_decref(w);
	json_decref(reply);
}

static const char C1[] = "1111111111111111111111111111111111111111";
static const char C2[] = "2222222222222222222222222222222222222222";
static const char VH[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const tg_actor who = { "mcp", "s1" };

/* ---- 1. recording ------------------------------------------------------ */

static void test_recording(void **state)
{
	tg_registry *r = open_home("tg_replay_rec");
	got g = { 0, NULL };
	tg_call_hooks h = { .ctx = &g, .journaled = on_journal };
	_cleanup_json_ json_t *limits = parse("{\"max_tool_calls\":8}");
	_cleanup_json_ json_t *want = NULL, *r0 = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL;
	char d0[65], d0b[65], d1[65], d2[65], canon[65], ver[65];
	reg_bridge b;

	(void)state;
	/* no hooks, or hooks that want no journal and bring none: no index */
	assert_int_equal(reg_replay_next(r), -1);
	{
		tg_call_hooks plain = { 0 };
		tg_registry_set_call_hooks(r, &plain);
		assert_int_equal(reg_replay_next(r), -1);
		tg_registry_set_call_hooks(r, NULL);
	}
	/* the digest is of the canonical args: key order does not count */
	digest_of(d0, "{\"b\":1,\"a\":\"x y\"}");
	digest_of(d0b, "{\"a\":\"x y\",  \"b\":1}");
	tg_sha256_hex(canon, "{\"a\":\"x y\",\"b\":1}", strlen("{\"a\":\"x y\",\"b\":1}"));
	assert_string_equal(d0, canon);
	assert_string_equal(d0b, canon);
	digest_of(d1, "{\"n\":1}");
	digest_of(d2, "{\"n\":2}");
	assert_string_not_equal(d1, d2);
	/* a registered callee's version is its active commit; none: "" */
	put_tool(r, "noter", 1, C1);
	assert_int_equal(reg_replay_callee_version(ver, r, "noter"), 0);
	assert_string_equal(ver, C1);
	assert_int_equal(reg_replay_callee_version(ver, r, "nosuch"), 0);
	assert_string_equal(ver, "");

	tg_registry_set_call_hooks(r, &h);
	reg_bridge_init(&b, r, &who, "outer", 1, NULL, limits, NULL);
	r0 = parse("{\"id\":7,\"result\":{\"entry\":1}}");
	r1 = parse("{\"id\":8,\"error\":{\"code\":\"failed\",\"message\":\"it broke\"}}");
	r2 = parse("{\"id\":9,\"result\":{\"inner\":3}}");
	r3 = parse("{\"id\":10,\"error\":{\"code\":\"denied\",\"message\":\"input required\"}}");
	assert_int_equal(reg_replay_next(r), 0);
	reg_replay_record(&b, 0, "host:ledger_note", VH, d0, r0, "ok");
	assert_int_equal(reg_replay_next(r), 1);
	reg_replay_record(&b, 1, "host:ledger_note", VH, d1, r1, "failed");
	/* an answer other than input_required does not stop the journal */
	reg_replay_asked(r, "declined");
	reg_replay_asked(r, NULL);
	assert_int_equal(reg_replay_next(r), 2);
	reg_replay_record(&b, 2, "noter", C1, d2, r2, NULL); /* NULL outcome: "ok" */
	/* a call asked with input_required: it and what follows are not kept */
	assert_int_equal(reg_replay_next(r), 3);
	reg_replay_asked(r, "input_required");
	reg_replay_record(&b, 3, "host:ledger_append", VH, d1, r3, "denied");
	assert_int_equal(reg_replay_next(r), 4);
	reg_replay_record(&b, 4, "host:ledger_note", VH, d1, r0, "ok");
	assert_int_equal(reg_replay_may_ask(r), 1);
	assert_int_equal(g.calls, 0);
	tg_registry_set_call_hooks(r, NULL);
	assert_int_equal(g.calls, 1);
	want = json_pack(
		"[o, o, o]",
		entry(0, 1, "host:ledger_note", VH, canon, 0, "ok", "{\"result\":{\"entry\":1}}"),
		entry(1, 1, "host:ledger_note", VH, d1, 0, "failed",
		      "{\"error\":{\"code\":\"failed\",\"message\":\"it broke\"}}"),
		entry(2, 1, "noter", C1, d2, 0, "ok", "{\"result\":{\"inner\":3}}"));
	assert_non_null(want);
	expect_json(g.journal, want);
	/* the recording run's replies were the caller's, untouched */
	assert_int_equal(json_integer_value(json_object_get(r0, "id")), 7);
	/* the hooks are gone: no journal, no index */
	assert_int_equal(reg_replay_next(r), -1);
	json_decref(g.journal);
	close_home(r);
}

/* ---- 2. answering ------------------------------------------------------ */

/* A journal of host:ledger_note calls {"n":0}..{"n":3} at version VH;
 * entry 1 was a failed call. */
static json_t *four_entries(void)
{
	json_t *j = json_array();
	char d[65], args[32], reply[64];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(args, sizeof(args), "{\"n\":%d}", i);
		digest_of(d, args);
		snprintf(reply, sizeof(reply), "{\"result\":{\"entry\":%d}}", 10 + i);
		json_array_append_new(
			j, entry(i, 1, "host:ledger_note", VH, d, 0, i == 1 ? "failed" : "ok",
				 i == 1 ? "{\"error\":{\"code\":\"failed\",\"message\":"
					  "\"no ledger\"}}"
					: reply));
	}
	return j;
}

static void expect_replayed(const json_t *e, const char *callee, const char *ver,
			    const char *digest, const char *was, int idx, int attempt)
{
	_cleanup_json_ json_t *want =
		json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:i, s:i, "
			  "s:i}}",
			  "actor", "mcp:s1", "event", "bridge_call", "tool", "outer", "details",
			  "callee", callee, "callee_version", ver, "args_sha256", digest, "outcome",
			  "replayed", "replayed_outcome", was, "journal_index", idx, "wall_ms", 0,
			  "caller", "outer@1", "attempt", attempt, "depth", 0, "run", 42);
	expect_json(e, want);
}

static void test_answering(void **state)
{
	tg_registry *r = open_home("tg_replay_ans");
	_cleanup_json_ json_t *journal = four_entries(), *limits = NULL;
	tg_call_hooks h = { .replay = journal };
	char d[4][65], other[65];
	static const char *const kinds[] = { "args", "version", "callee" };
	size_t k;
	int i;

	(void)state;
	limits = parse("{\"max_tool_calls\":8}");
	for (i = 0; i < 4; i++) {
		char args[32];
		snprintf(args, sizeof(args), "{\"n\":%d}", i);
		digest_of(d[i], args);
	}
	digest_of(other, "{\"n\":9}");
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const char *tool = "host:ledger_note", *ver = VH, *dg = d[2];
		json_t *log;
		_cleanup_json_ json_t *div = NULL;
		reg_bridge b;
		int64_t head;

		tg_registry_set_call_hooks(r, &h);
		reg_bridge_init(&b, r, &who, "outer", 1, NULL, limits, NULL);
		b.run_id = 42;
		head = audit_head(r);
		/* entries 0 and 1 match: answered in order with the request's id */
		b.attempts = 1;
		expect_answer(&b, 0, "host:ledger_note", VH, d[0], 41,
			      "{\"result\":{\"entry\":10},\"id\":41}");
		b.attempts = 2;
		expect_answer(&b, 1, "host:ledger_note", VH, d[1], 42,
			      "{\"error\":{\"code\":\"failed\",\"message\":\"no ledger\"},"
			      "\"id\":42}");
		assert_int_equal(b.ok, 1); /* the failed reply is not counted ok */
		/* entry 2 does not match the call: replay mode ends */
		if (strcmp(kinds[k], "args") == 0)
			dg = other;
		else if (strcmp(kinds[k], "version") == 0)
			ver = C2;
		else
			tool = "host:ledger_append";
		b.attempts = 3;
		expect_answer(&b, 2, tool, ver, dg, 43, NULL);
		/* entry 3 matches, but the journal answers nothing any more */
		b.attempts = 4;
		expect_answer(&b, 3, "host:ledger_note", VH, d[3], 44, NULL);
		assert_int_equal(b.ok, 1);
		log = audit_since(r, head);
		assert_int_equal(json_array_size(log), 3);
		expect_replayed(json_array_get(log, 0), "host:ledger_note", VH, d[0], "ok", 0, 1);
		expect_replayed(json_array_get(log, 1), "host:ledger_note", VH, d[1], "failed", 1,
				2);
		div = json_pack("{s:s, s:s, s:s, s:{s:i, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s}, "
				"s:s, s:i, s:i, s:i}}",
				"actor", "mcp:s1", "event", "bridge_replay_diverged", "tool", "outer",
				"details", "index", 2, "journal", "callee", "host:ledger_note",
				"callee_version", VH, "args_sha256", d[2], "call", "callee", tool,
				"callee_version", ver, "args_sha256", dg, "caller", "outer@1",
				"attempt", 3, "depth", 0, "run", 42);
		expect_json(json_array_get(log, 2), div);
		json_decref(log);
		tg_registry_set_call_hooks(r, NULL);
	}
	close_home(r);
}

/* A registered callee's version: its active commit, so a new active
 * version of the callee is a mismatch (reg_replay_callee_version as
 * bridge.c asks it). */
static void test_answering_new_version(void **state)
{
	tg_registry *r = open_home("tg_replay_ver");
	_cleanup_json_ json_t *journal = NULL;
	tg_call_hooks h = { 0 };
	char d[65], ver[65];
	reg_bridge b;
	int64_t head;
	json_t *log;

	(void)state;
	put_tool(r, "noter", 1, C1);
	digest_of(d, "{}");
	journal = json_pack("[{s:i, s:i, s:s, s:s, s:s, s:i, s:s, s:{s:{s:i}}}]", "i", 0, "span",
			    1, "callee", "noter", "callee_version", C1, "args_sha256", d, "depth",
			    0, "outcome", "ok", "reply", "result", "inner", 1);
	h.replay = journal;
	put_tool(r, "noter", 2, C2); /* noter@2 is active now */
	tg_registry_set_call_hooks(r, &h);
	reg_bridge_init(&b, r, &who, "outer", 1, NULL, NULL, NULL);
	head = audit_head(r);
	assert_int_equal(reg_replay_next(r), 0);
	assert_int_equal(reg_replay_callee_version(ver, r, "noter"), 0);
	assert_string_equal(ver, C2);
	assert_null(reg_replay_answer(&b, 0, "noter", ver, d, 1));
	log = audit_since(r, head);
	assert_int_equal(json_array_size(log), 1);
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(log, 0), "event")),
		"bridge_replay_diverged");
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(json_object_get(json_array_get(log, 0),
								    "details"),
						    "call"),
				    "callee_version")),
			    C2);
	json_decref(log);
	tg_registry_set_call_hooks(r, NULL);
	close_home(r);
}

/* ---- 3. span ------------------------------------------------------------ */

/* outer calls noter (which calls host:ledger_note {"account":"inner"}),
 * then host:ledger_note {"account":"after"}, then host:ledger_append, which
 * asks with input_required; the retry replays noter and the note (the
 * case "a registered callee replayed" of tests/mcp/replay.test.mjs). */
static void test_span(void **state)
{
	tg_registry *r = open_home("tg_replay_span");
	got g = { 0, NULL };
	tg_call_hooks rec = { .ctx = &g, .journaled = on_journal }, rep = { 0 };
	_cleanup_json_ json_t *lo = parse("{\"max_tool_calls\":4}");
	_cleanup_json_ json_t *ln = parse("{\"max_tool_calls\":2}");
	_cleanup_json_ json_t *want = NULL, *a = NULL, *b_ = NULL, *c = NULL, *big = NULL;
	char dn[65], din[65], daf[65], dap[65], ver[65];
	reg_bridge outer, noter;
	json_t *reply, *log;
	int64_t head;
	size_t i;

	(void)state;
	put_tool(r, "noter", 1, C1);
	assert_int_equal(reg_replay_callee_version(ver, r, "noter"), 0);
	digest_of(dn, "{}");
	digest_of(din, "{\"account\":\"inner\"}");
	digest_of(daf, "{\"account\":\"after\"}");
	digest_of(dap, "{\"account\":\"big\"}");

	/* the first run */
	tg_registry_set_call_hooks(r, &rec);
	reg_bridge_init(&outer, r, &who, "outer", 1, NULL, lo, NULL);
	assert_int_equal(reg_replay_next(r), 0); /* outer -> noter starts */
	reg_bridge_init(&noter, r, &who, "noter", 1, NULL, ln, &outer);
	assert_int_equal(reg_replay_next(r), 1); /* noter -> host:ledger_note */
	a = parse("{\"id\":1,\"result\":{\"entry\":1}}");
	reg_replay_record(&noter, 1, "host:ledger_note", VH, din, a, "ok");
	b_ = parse("{\"id\":1,\"result\":{\"inner\":1}}");
	reg_replay_record(&outer, 0, "noter", ver, dn, b_, "ok"); /* noter answered */
	assert_int_equal(reg_replay_next(r), 2);
	c = parse("{\"id\":2,\"result\":{\"entry\":2}}");
	reg_replay_record(&outer, 2, "host:ledger_note", VH, daf, c, "ok");
	assert_int_equal(reg_replay_next(r), 3);
	reg_replay_asked(r, "input_required");
	reg_replay_record(&outer, 3, "host:ledger_append", VH, dap, c, "denied");
	tg_registry_set_call_hooks(r, NULL);
	assert_int_equal(g.calls, 1);
	want = json_pack(
		"[o, o, o]",
		entry(1, 1, "host:ledger_note", VH, din, 1, "ok", "{\"result\":{\"entry\":1}}"),
		entry(0, 2, "noter", C1, dn, 0, "ok", "{\"result\":{\"inner\":1}}"),
		entry(2, 1, "host:ledger_note", VH, daf, 0, "ok", "{\"result\":{\"entry\":2}}"));
	expect_json(g.journal, want);

	/* the retry: noter is answered without running (its own call is
	 * skipped), then the note from entry 2, then the append runs */
	rep.replay = g.journal;
	tg_registry_set_call_hooks(r, &rep);
	reg_bridge_init(&outer, r, &who, "outer", 1, NULL, lo, NULL);
	head = audit_head(r);
	expect_answer(&outer, 0, "noter", C1, dn, 11, "{\"result\":{\"inner\":1},\"id\":11}");
	expect_answer(&outer, 2, "host:ledger_note", VH, daf, 12,
		      "{\"result\":{\"entry\":2},\"id\":12}");
	expect_answer(&outer, 3, "host:ledger_append", VH, dap, 13, NULL);
	assert_int_equal(outer.ok, 2);
	log = audit_since(r, head);
	assert_int_equal(json_array_size(log), 2);
	for (i = 0; i < 2; i++) {
		json_t *d = json_object_get(json_array_get(log, i), "details");
		assert_string_equal(json_string_value(json_object_get(d, "outcome")), "replayed");
		assert_int_equal(json_integer_value(json_object_get(d, "journal_index")),
				 i == 0 ? 0 : 2);
		assert_string_equal(json_string_value(json_object_get(d, "callee")),
				    i == 0 ? "noter" : "host:ledger_note");
	}
	json_decref(log);
	tg_registry_set_call_hooks(r, NULL);
	json_decref(g.journal);
	g.journal = NULL;

	/* a span past REG_REPLAY_MAX_SPAN (1024) is not followed */
	big = parse("[{\"i\":0,\"span\":1025,\"callee\":\"host:ledger_note\",\"callee_version\":"
		    "\"\",\"args_sha256\":\"\",\"depth\":0,\"outcome\":\"ok\","
		    "\"reply\":{\"result\":{}}}]");
	json_object_set_new(json_array_get(big, 0), "callee_version", json_string(VH));
	json_object_set_new(json_array_get(big, 0), "args_sha256", json_string(daf));
	rep.replay = big;
	tg_registry_set_call_hooks(r, &rep);
	reg_bridge_init(&outer, r, &who, "outer", 1, NULL, lo, NULL);
	assert_int_equal(reg_replay_next(r), 0);
	reply = reg_replay_answer(&outer, 0, "host:ledger_note", VH, daf, 1);
	assert_non_null(reply);
	json_decref(reply);
	assert_int_equal(reg_replay_next(r), 1);
	tg_registry_set_call_hooks(r, NULL);
	close_home(r);
}

/* ---- 4. caps -------------------------------------------------------------- */

static void test_caps(void **state)
{
	tg_registry *r = open_home("tg_replay_caps");
	got g = { 0, NULL };
	tg_call_hooks h = { .ctx = &g, .journaled = on_journal };
	_cleanup_json_ json_t *l2 = parse("{\"max_tool_calls\":2}");
	_cleanup_json_ json_t *l8 = parse("{\"max_tool_calls\":8}");
	_cleanup_json_ json_t *small = parse("{\"id\":1,\"result\":{}}"), *big = NULL;
	char d[65];
	reg_bridge root, child;
	char *pad;

	(void)state;
	digest_of(d, "{}");
	/* exactly max_tool_calls entries: kept */
	tg_registry_set_call_hooks(r, &h);
	reg_bridge_init(&root, r, &who, "outer", 1, NULL, l2, NULL);
	assert_int_equal(root.max_calls, 2);
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, small, "ok");
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, small, "ok");
	assert_int_equal(reg_replay_may_ask(r), 1);
	tg_registry_set_call_hooks(r, NULL);
	assert_int_equal(g.calls, 1);
	assert_non_null(g.journal);
	assert_int_equal(json_array_size(g.journal), 2);
	json_decref(g.journal);
	g.journal = NULL;

	/* one more, made by a callee whose own cap is higher: the root's
	 * cap counts, the journal is dropped and no call may ask */
	tg_registry_set_call_hooks(r, &h);
	reg_bridge_init(&root, r, &who, "outer", 1, NULL, l2, NULL);
	reg_bridge_init(&child, r, &who, "inner", 1, NULL, l8, &root);
	assert_int_equal(child.max_calls, 8);
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, small, "ok");
	reg_replay_record(&child, reg_replay_next(r), "host:a", VH, d, small, "ok");
	assert_int_equal(reg_replay_may_ask(r), 1);
	reg_replay_record(&child, reg_replay_next(r), "host:a", VH, d, small, "ok");
	assert_int_equal(reg_replay_may_ask(r), 0);
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, small, "ok");
	assert_int_equal(reg_replay_may_ask(r), 0);
	tg_registry_set_call_hooks(r, NULL);
	assert_int_equal(g.calls, 2);
	assert_null(g.journal);
	assert_int_equal(reg_replay_may_ask(r), 1); /* no journal: nothing to cap */

	/* bytes: one reply of 600000 bytes fits in REG_REPLAY_MAX_BYTES, a
	 * second does not */
	pad = malloc(600001);
	assert_non_null(pad);
	memset(pad, 'x', 600000);
	pad[600000] = '\0';
	big = json_pack("{s:i, s:{s:s}}", "id", 1, "result", "pad", pad);
	free(pad);
	assert_non_null(big);
	tg_registry_set_call_hooks(r, &h);
	reg_bridge_init(&root, r, &who, "outer", 1, NULL, l8, NULL);
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, big, "ok");
	assert_int_equal(reg_replay_may_ask(r), 1);
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, big, "ok");
	assert_int_equal(reg_replay_may_ask(r), 0);
	/* a small one after the drop is not kept either */
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, small, "ok");
	tg_registry_set_call_hooks(r, NULL);
	assert_int_equal(g.calls, 3);
	assert_null(g.journal);

	/* the first one alone is kept whole */
	tg_registry_set_call_hooks(r, &h);
	reg_bridge_init(&root, r, &who, "outer", 1, NULL, l8, NULL);
	reg_replay_record(&root, reg_replay_next(r), "host:a", VH, d, big, "ok");
	tg_registry_set_call_hooks(r, NULL);
	assert_int_equal(g.calls, 4);
	assert_int_equal(json_array_size(g.journal), 1);
	assert_int_equal(strlen(json_string_value(json_object_get(
				 json_object_get(json_object_get(json_array_get(g.journal, 0),
								 "reply"),
						 "result"),
				 "pad"))),
			 600000);
	json_decref(g.journal);
	close_home(r);
}

/* ---- 5. storage ----------------------------------------------------------- */

/* The journal's canonical text (compact, sorted keys) as stored. */
static const char jtext[] =
	"[{\"args_sha256\":\"ab\",\"callee\":\"host:ledger_note\",\"callee_version\":\"v1\","
	"\"depth\":0,\"i\":0,\"outcome\":\"ok\",\"reply\":{\"result\":{\"entry\":1}},\"span\":1},"
	"{\"args_sha256\":\"cd\",\"callee\":\"noter\",\"callee_version\":\"v2\",\"depth\":0,"
	"\"i\":1,\"outcome\":\"failed\",\"reply\":{\"error\":{\"code\":\"failed\"}},\"span\":2}]";

static void expect_err(int rc, int code, const char *msg)
{
	assert_int_equal(rc, code);
	assert_int_equal(tg_error_last()->code, code);
	assert_string_equal(tg_error_last()->message, msg);
	tg_error_clear();
}

static const char missing[] = "journal missing (its row expired or was removed)";
static const char altered[] = "journal altered (its digest does not match the one sealed in "
			      "the state)";

static void test_storage(void **state)
{
	tg_registry *r = open_home("tg_replay_store");
	_cleanup_json_ json_t *j = NULL, *huge = NULL;
	char digest[65], want[65], other[65], obj[65];
	int64_t exp = tg_wall_ms() + 600000;
	json_t *out = NULL;
	char *pad;

	(void)state;
	/* entries written in another key order: stored canonically */
	j = parse("[{\"i\":0,\"span\":1,\"callee\":\"host:ledger_note\",\"callee_version\":\"v1\","
		  "\"args_sha256\":\"ab\",\"depth\":0,\"outcome\":\"ok\","
		  "\"reply\":{\"result\":{\"entry\":1}}},"
		  "{\"span\":2,\"i\":1,\"callee\":\"noter\",\"callee_version\":\"v2\","
		  "\"args_sha256\":\"cd\",\"depth\":0,\"outcome\":\"failed\","
		  "\"reply\":{\"error\":{\"code\":\"failed\"}}}]");
	tg_sha256_hex(want, jtext, strlen(jtext));
	assert_int_equal(reg_journal_store(r, "sid1", "alice", exp, j, digest), 0);
	assert_string_equal(digest, want);
	assert_int_equal(tgt_sql_int(r->home, "SELECT count(*) FROM replay_journals WHERE sid = "
					      "'sid1' AND principal = 'alice'"),
			 1);
	assert_int_equal(tgt_sql_int(r->home, "SELECT expires_at FROM replay_journals WHERE "
					      "sid = 'sid1'"),
			 exp);
	{
		char q[2048];
		snprintf(q, sizeof(q), "SELECT entries = '%s' FROM replay_journals WHERE sid = "
				       "'sid1'", jtext);
		assert_int_equal(tgt_sql_int(r->home, q), 1);
	}
	/* taken back once: equal, and the row is gone */
	assert_int_equal(reg_journal_take(r, "sid1", digest, &out), 0);
	expect_json(out, j);
	json_decref(out);
	assert_int_equal(tgt_sql_int(r->home, "SELECT count(*) FROM replay_journals"), 0);
	expect_err(reg_journal_take(r, "sid1", digest, &out), TG_ERR_DENIED, missing);
	assert_null(out);

	/* a wrong digest: refused, the row stays */
	assert_int_equal(reg_journal_store(r, "sid2", "alice", exp, j, digest), 0);
	memcpy(other, digest, sizeof(other));
	other[0] = other[0] == '0' ? '1' : '0';
	expect_err(reg_journal_take(r, "sid2", other, &out), TG_ERR_DENIED, altered);
	assert_null(out);
	assert_int_equal(tgt_sql_int(r->home, "SELECT count(*) FROM replay_journals WHERE sid = "
					      "'sid2'"),
			 1);
	/* a changed row (a reply made ok): refused with its sealed digest */
	tgt_sql(r->home, "UPDATE replay_journals SET entries = replace(entries, "
			 "'\"outcome\":\"failed\"', '\"outcome\":\"ok\"') WHERE sid = 'sid2'");
	expect_err(reg_journal_take(r, "sid2", digest, &out), TG_ERR_DENIED, altered);
	assert_null(out);
	/* a row whose text is not an array, with its own digest */
	tgt_sql(r->home, "UPDATE replay_journals SET entries = '{}' WHERE sid = 'sid2'");
	tg_sha256_hex(obj, "{}", 2);
	expect_err(reg_journal_take(r, "sid2", obj, &out), TG_ERR_INTERNAL,
		   "replay journal: not an array");
	assert_null(out);
	/* a removed row */
	tgt_sql(r->home, "DELETE FROM replay_journals WHERE sid = 'sid2'");
	expect_err(reg_journal_take(r, "sid2", digest, &out), TG_ERR_DENIED, missing);

	/* over 1 MiB: refused, nothing stored */
	pad = malloc(REG_REPLAY_MAX_BYTES + 1);
	assert_non_null(pad);
	memset(pad, 'x', REG_REPLAY_MAX_BYTES);
	pad[REG_REPLAY_MAX_BYTES] = '\0';
	huge = json_pack("[s]", pad);
	free(pad);
	expect_err(reg_journal_store(r, "sid3", "alice", exp, huge, digest), TG_ERR_LIMIT,
		   "request state: the journal is over 1 MiB");
	assert_int_equal(tgt_sql_int(r->home, "SELECT count(*) FROM replay_journals"), 0);

	/* the sweep: the expired row goes, the live one stays (the store
	 * sweeps before its insert, so the expired row is stored last) */
	assert_int_equal(reg_journal_store(r, "live", "alice", exp, j, digest), 0);
	assert_int_equal(reg_journal_store(r, "old", "bob", tg_wall_ms() - 1000, j, other),
			 0);
	assert_int_equal(tgt_sql_int(r->home, "SELECT count(*) FROM replay_journals"), 2);
	assert_int_equal(reg_journal_sweep(r), 0);
	assert_int_equal(tgt_sql_int(r->home, "SELECT count(*) FROM replay_journals WHERE sid = "
					      "'live'"),
			 1);
	assert_int_equal(tgt_sql_int(r->home, "SELECT count(*) FROM replay_journals"), 1);
	expect_err(reg_journal_take(r, "old", other, &out), TG_ERR_DENIED, missing);
	assert_int_equal(reg_journal_take(r, "live", digest, &out), 0);
	expect_json(out, j);
	json_decref(out);
	close_home(r);
}

/* A sealed requestState's expiry and its journal row's are milliseconds
 * since the epoch: a state or journal stored before a reboot must not
 * come back to life when CLOCK_MONOTONIC starts again near 0. The real
 * seal and redeem: the expiry stored for the journal and for the used
 * state is now + call_approval_timeout_ms on the wall clock, and a state
 * past it is refused with the exact reason. */
static void test_state_expiry_wall_clock(void **state)
{
	tg_registry *r = open_home("tg_replay_exp");
	json_t *payload = parse("{\"v\":1,\"ask\":{\"callee\":\"host:x\"},\"journal\":"
				"[{\"i\":0,\"callee\":\"host:x\"}]}");
	const char *req = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char *sealed = NULL;
	json_t *back = NULL;
	int64_t before, after, exp;
	uint64_t timeout = r->cfg.call_approval_timeout_ms;

	(void)state;
	before = tg_wall_ms();
	assert_int_equal(tg_registry_state_seal(&sealed, r, payload, "alice", req), 0);
	after = tg_wall_ms();
	exp = tgt_sql_int(r->home, "SELECT expires_at FROM replay_journals");
	assert_true(exp >= before + (int64_t)timeout && exp <= after + (int64_t)timeout);
	assert_int_equal(tg_registry_state_redeem(&back, r, sealed, "alice", req), 0);
	exp = tgt_sql_int(r->home, "SELECT expires_at FROM used_request_states");
	assert_true(exp >= before + (int64_t)timeout && exp <= after + (int64_t)timeout);
	json_decref(back);
	back = NULL;
	free(sealed);
	sealed = NULL;
	/* a 1 ms expiry, 20 ms later: refused, nothing recorded as used */
	r->cfg.call_approval_timeout_ms = 1;
	assert_int_equal(tg_registry_state_seal(&sealed, r, payload, "alice", req), 0);
	usleep(20000);
	expect_err(tg_registry_state_redeem(&back, r, sealed, "alice", req), TG_ERR_DENIED,
		   "expired (call_approval_timeout_ms passed)");
	assert_null(back);
	assert_int_equal(tgt_sql_int(r->home, "SELECT COUNT(*) FROM used_request_states"), 1);
	free(sealed);
	json_decref(payload);
	close_home(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recording),
		cmocka_unit_test(test_answering),
		cmocka_unit_test(test_answering_new_version),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_state_expiry_wall_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
