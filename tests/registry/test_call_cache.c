/*
 * tests/registry/test_call_cache.c: the hot path of a call on a long-lived
 * handle (registry/schema_cache.c, registry/commit.c, tg_registry_call_logged).
 *  - the parsed schema is cached per version: a new version's schema applies
 *    at once, a rollback brings the old one back, an edit of a version's
 *    schema in registry.db behind the handle's back is seen at the next call,
 *    and a repeated call of one version parses nothing;
 *  - tg_registry_call_logged appends the caller's entry right after
 *    call_result, in the same transaction;
 *  - group commit: four processes sharing one tg_commit_group append
 *    concurrently; every entry is there once, the chain verifies, each
 *    commit passed the barrier and no more fsyncs ran than commits;
 *  - a leader that died with its sync in flight does not block the group:
 *    the next caller takes over;
 *  - deferred intents (registry/calllog.c), with and without the sandbox
 *    pool: an effect-free tool's first barrier is its outcome's (an injected
 *    failure there: the tool ran, the caller gets the exact "ran but its
 *    outcome could not be recorded" error, no result); a workspace:write
 *    tool's first barrier is its intent's (an injected failure: the exact
 *    "was not run" error, no file written, the row unfinished); the next
 *    calls work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "registry/registry.h"
#include "sandbox/sandbox.h"
#include "test_support.h"

static const char src[] = "#include <toolgate/tool.h>\n"
			  "int main(void)\n{\n"
			  "\ttg_tool_args *a = tg_tool_read_args();\n"
			  "\ttg_out_object_begin();\n\ttg_out_end();\n"
			  "\ttg_tool_args_free(a);\n\treturn 0;\n}\n";
/* v1 takes {"text": string}, v2 {"n": integer}; both return {} */
static const char v1_json[] =
	"{\"name\":\"cached\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\","
	"\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]},"
	"\"tests\":[{\"name\":\"t\",\"args\":{\"text\":\"a\"},\"expect\":{}}]}";
static const char v2_json[] =
	"{\"name\":\"cached\",\"description\":\"d2\",\"input_schema\":{\"type\":\"object\","
	"\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]},"
	"\"tests\":[{\"name\":\"t\",\"args\":{\"n\":1},\"expect\":{}}]}";

static void create(tg_registry *r, const char *manifest)
{
	json_t *m = json_loads(manifest, 0, NULL), *res = NULL;
	tg_submission sub = { m, src, strlen(src) };

	assert_non_null(m);
	if (tg_registry_create(&res, r, &sub, NULL) < 0)
		fail_msg("create: %s", tg_error_last()->message);
	assert_string_equal(json_string_value(json_object_get(res, "status")), "active");
	json_decref(res);
	json_decref(m);
}

/* call with args; returns the reason of a failure ("" on success) */
static const char *call(tg_registry *r, const char *args_text, unsigned *version)
{
	static char reason[64];
	json_t *args = json_loads(args_text, 0, NULL), *res = NULL;
	tg_actor who = { "test", NULL };

	assert_non_null(args);
	if (tg_registry_call(&res, r, "cached", args, &who) < 0)
		fail_msg("call: %s", tg_error_last()->message);
	*version = (unsigned)json_integer_value(json_object_get(res, "version"));
	snprintf(reason, sizeof(reason), "%s",
		 json_is_true(json_object_get(res, "ok"))
			 ? ""
			 : json_string_value(json_object_get(res, "reason")));
	json_decref(res);
	json_decref(args);
	return reason;
}

static void test_schema_cache_per_version(void **state)
{
	char *home = tgt_home_make("tg_call_cache");
	tg_registry *r = NULL;
	json_t *res = NULL;
	uint64_t hits, misses, h0, m0;
	unsigned v = 0;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	create(r, v1_json);
	tg_registry_schema_cache_stats(r, &h0, &m0);
	assert_string_equal(call(r, "{\"text\":\"a b\"}", &v), "");
	assert_int_equal(v, 1);
	assert_string_equal(call(r, "{\"n\":1}", &v), "invalid_args");
	assert_string_equal(call(r, "{\"text\":\"c\"}", &v), "");
	tg_registry_schema_cache_stats(r, &hits, &misses);
	assert_int_equal(misses - m0, 1); /* parsed once for three calls */
	assert_int_equal(hits - h0, 2);

	/* a new version: its schema, at once, on the same handle */
	create(r, v2_json);
	assert_string_equal(call(r, "{\"n\":2}", &v), "");
	assert_int_equal(v, 2);
	assert_string_equal(call(r, "{\"text\":\"a\"}", &v), "invalid_args");
	/* back to v1: v1's schema again */
	if (tg_registry_rollback(&res, r, "cached", 1, 0, NULL) < 0)
		fail_msg("rollback: %s", tg_error_last()->message);
	json_decref(res);
	assert_string_equal(call(r, "{\"text\":\"a\"}", &v), "");
	assert_int_equal(v, 1);
	assert_string_equal(call(r, "{\"n\":2}", &v), "invalid_args");

	/* v1's schema changed in registry.db behind the handle (same version
	 * row, same commit): the next call sees the new text */
	tgt_sql(home, "UPDATE versions SET input_schema = '{\"type\":\"object\",\"properties\":"
		      "{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}' WHERE version = 1");
	tg_registry_schema_cache_stats(r, &h0, &m0);
	assert_string_equal(call(r, "{\"text\":\"a\"}", &v), "invalid_args");
	assert_string_equal(call(r, "{\"n\":3}", &v), "");
	tg_registry_schema_cache_stats(r, &hits, &misses);
	assert_int_equal(misses - m0, 1);
	tg_registry_free(r);
	tgt_home_remove(home);
}

static void test_call_logged_entry(void **state)
{
	char *home = tgt_home_make("tg_call_cache");
	tg_registry *r = NULL;
	json_t *res = NULL, *log = NULL, *args = json_pack("{s:s}", "text", "a");
	tg_actor who = { "mcp", "s1" };
	size_t n;
	const char *ev[3];

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	create(r, v1_json);
	if (tg_registry_call_logged(&res, r, "cached", args, &who, "mcp_call") < 0)
		fail_msg("call: %s", tg_error_last()->message);
	assert_true(json_is_true(json_object_get(res, "ok")));
	json_decref(res);
	assert_int_equal(tg_registry_call_logged(&res, r, "cached", args, &who, ""), TG_ERR_INVALID);
	assert_int_equal(tg_registry_log(&log, r, 3), 0);
	n = json_array_size(log);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++)
		ev[i] = json_string_value(json_object_get(json_array_get(log, i), "event"));
	/* newest first or oldest first: the three are call, call_result,
	 * mcp_call in chain order */
	if (strcmp(ev[0], "mcp_call") == 0) {
		assert_string_equal(ev[1], "call_result");
		assert_string_equal(ev[2], "call");
	} else {
		assert_string_equal(ev[0], "call");
		assert_string_equal(ev[1], "call_result");
		assert_string_equal(ev[2], "mcp_call");
	}
	json_decref(log);
	json_decref(args);
	tg_registry_free(r);
	tgt_home_remove(home);
}

#define PROCS 4
#define EACH 40

static void test_group_commit_processes(void **state)
{
	char *home = tgt_home_make("tg_call_cache");
	tg_registry *r = NULL;
	tg_commit_group *g = NULL;
	json_t *out = NULL, *log = NULL;
	pid_t pids[PROCS];
	uint64_t syncs, barriers;
	size_t i, n = 0;
	int status;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	assert_int_equal(tg_commit_group_new(&g), 0);
	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			tg_registry *c = NULL;
			tg_actor who = { "worker", NULL };
			int k, bad = 0;
			if (tg_registry_open(&c, home, 0) < 0)
				_exit(3);
			tg_registry_set_commit_group(c, g);
			for (k = 0; k < EACH; k++) {
				json_t *d = json_pack("{s:i, s:i}", "proc", (int)i, "k", k);
				if (tg_registry_audit(c, &who, "group_test", NULL, d) < 0)
					bad = 1;
				json_decref(d);
			}
			tg_registry_free(c);
			_exit(bad);
		}
	}
	for (i = 0; i < PROCS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	tg_commit_group_stats(g, &syncs, &barriers);
	assert_int_equal(barriers, PROCS * EACH);
	assert_true(syncs >= 1 && syncs <= barriers);
	print_message("group commit: %llu commits, %llu fsyncs\n", (unsigned long long)barriers,
		      (unsigned long long)syncs);
	assert_int_equal(tg_registry_log(&log, r, 100000), 0);
	for (i = 0; i < json_array_size(log); i++)
		n += strcmp(json_string_value(json_object_get(json_array_get(log, i), "event")),
			    "group_test") == 0;
	assert_int_equal(n, PROCS * EACH);
	assert_int_equal(tg_registry_verify(&out, r), 0);
	if (!json_is_true(json_object_get(out, "ok")))
		fail_msg("verify: %s", json_dumps(out, 0));
	json_decref(out);
	json_decref(log);
	tg_commit_group_free(g);
	tg_registry_free(r);
	tgt_home_remove(home);
}

static void test_group_leader_died(void **state)
{
	char *home = tgt_home_make("tg_call_cache");
	tg_registry *r = NULL;
	tg_commit_group *g = NULL;
	tg_actor who = { "test", NULL };
	uint64_t syncs, barriers;
	pid_t dead;
	int status;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	assert_int_equal(tg_commit_group_new(&g), 0);
	tg_registry_set_commit_group(r, g);
	/* a leader that dies with its sync in flight (and is not reaped
	 * before the next caller comes: a zombie) */
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		tg_commit_group_test_die_syncing(g);
	{
		siginfo_t si;
		while (waitid(P_PID, (id_t)dead, &si, WEXITED | WNOWAIT) < 0)
			;
	}
	assert_int_equal(tg_registry_audit(r, &who, "after_leader_died", NULL, NULL), 0);
	tg_commit_group_stats(g, &syncs, &barriers);
	assert_int_equal(barriers, 1);
	assert_int_equal(syncs, 2); /* the dead leader's number, then ours */
	assert_int_equal(waitpid(dead, &status, 0), dead);
	tg_commit_group_free(g);
	tg_registry_free(r);
	tgt_home_remove(home);
}

/* A workspace:write tool (as tests/registry/tools/note_writer.c): its run
 * acts outside its result, so its intent must be durable before it starts. */
static const char writer_src[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int main(void)\n{\n"
	"\tchar in[64] = { 0 };\n"
	"\tFILE *f;\n"
	"\tif (fread(in, 1, sizeof(in) - 1, stdin) > 0 && strstr(in, \"dry\")) {\n"
	"\t\tputs(\"{}\");\n\t\treturn 0;\n\t}\n"
	"\tf = fopen(\"/workspace/note.txt\", \"a\");\n"
	"\tif (!f)\n\t\treturn 1;\n"
	"\tfputs(\"written\\n\", f);\n\tfclose(f);\n"
	"\tputs(\"{}\");\n\treturn 0;\n}\n";
static const char writer_json[] =
	"{\"name\":\"note_writer\",\"description\":\"d\",\"input_schema\":{\"type\":"
	"\"object\"},\"tests\":[{\"name\":\"t\",\"args\":{\"dry\":1},\"expect\":{}}],"
	"\"capabilities\":[\"workspace:write\"]}";

static void test_deferred_intent(void **state)
{
	char *home = tgt_home_make("tg_call_cache");
	char *ws = tg_path_join(home, "../ws"), *note = tg_path_join(home, "../ws/note.txt");
	char *conf_path = tg_path_join(home, "config.json");
	tg_registry *r = NULL;
	json_t *res = NULL, *args = json_pack("{s:s}", "text", "a"), *none = json_object();
	json_t *wm = json_loads(writer_json, 0, NULL);
	tg_submission wsub = { wm, writer_src, strlen(writer_src) };
	tg_actor who = { "test", NULL };
	unsigned v = 0;
	int pooled;
	FILE *f;

	(void)state;
	assert_non_null(wm);
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	tg_registry_free(r);
	assert_int_equal(mkdir(ws, 0777), 0);
	assert_int_equal(chmod(ws, 0777), 0);
	f = fopen(conf_path, "w");
	assert_non_null(f);
	fprintf(f, "{\"workspace\":\"%s\"}", ws);
	fclose(f);
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	create(r, v1_json);
	if (tg_registry_create(&res, r, &wsub, NULL) < 0)
		fail_msg("create note_writer: %s", tg_error_last()->message);
	json_decref(res);
	if (tg_registry_approve(&res, r, "note_writer", 1, 0, &who) < 0)
		fail_msg("approve: %s", tg_error_last()->message);
	json_decref(res);
	res = NULL;
	for (pooled = 0; pooled <= 1; pooled++) {
		const tg_config *cfg = tg_registry_config(r);
		tg_sandbox_opts ceil = { .memory_mb = cfg->max_memory_mb,
					 .cpu_percent = cfg->cpu_percent };
		long long unfinished, ok_calls;
		if (pooled)
			assert_int_equal(tg_sandbox_pool_start(2, &ceil), 0);
		assert_string_equal(call(r, "{\"text\":\"a b\"}", &v), "");
		unfinished = tgt_sql_int(home, "SELECT count(*) FROM calls WHERE finished = 0");
		ok_calls = tgt_sql_int(home, "SELECT count(*) FROM calls WHERE tool = 'cached' AND "
					     "finished = 1 AND ok = 1");
		/* an effect-free tool: its intent waits for its outcome's
		 * barrier, the call's first: the tool ran (its row finished
		 * ok), and the caller gets the error, never the result */
		tg_registry_test_fail_sync(r, 1);
		assert_int_equal(tg_registry_call(&res, r, "cached", args, &who), TG_ERR_IO);
		assert_null(res);
		assert_string_equal(tg_error_last()->message,
				    "cached ran but its outcome could not be recorded: sync the "
				    "WAL: injected failure");
		assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls WHERE finished = 0"),
				 unfinished);
		assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls WHERE tool = 'cached' "
						   "AND finished = 1 AND ok = 1"),
				 ok_calls + 1);
		/* a workspace:write tool: its intent's barrier fails, so the
		 * tool never starts (no file) and its row stays unfinished */
		tg_registry_test_fail_sync(r, 1);
		assert_int_equal(tg_registry_call(&res, r, "note_writer", none, &who), TG_ERR_IO);
		assert_null(res);
		assert_string_equal(tg_error_last()->message,
				    "note_writer was not run: its call could not be recorded: "
				    "sync the WAL: injected failure");
		assert_int_equal(access(note, F_OK), -1);
		assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls WHERE finished = 0"),
				 unfinished + 1);
		/* and the next calls go through */
		if (tg_registry_call(&res, r, "note_writer", none, &who) < 0)
			fail_msg("note_writer: %s", tg_error_last()->message);
		assert_true(json_is_true(json_object_get(res, "ok")));
		json_decref(res);
		res = NULL;
		assert_int_equal(unlink(note), 0);
		assert_string_equal(call(r, "{\"text\":\"d\"}", &v), "");
		assert_int_equal(tgt_sql_int(home, "SELECT count(*) FROM calls WHERE tool = 'cached' "
						   "AND finished = 1 AND ok = 1"),
				 ok_calls + 2);
		if (pooled)
			tg_sandbox_pool_stop();
	}
	json_decref(args);
	json_decref(none);
	json_decref(wm);
	tg_registry_free(r);
	free(ws);
	free(note);
	free(conf_path);
	tgt_home_remove(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_cache_per_version),
		cmocka_unit_test(test_call_logged_entry),
		cmocka_unit_test(test_group_commit_processes),
		cmocka_unit_test(test_group_leader_died),
		cmocka_unit_test(test_deferred_intent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
