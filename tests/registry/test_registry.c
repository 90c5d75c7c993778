/*
 * tests/registry/test_registry.c: unit tests of the registry that need no
 * sandbox: manifest validation (every refusal with its message), config.json,
 * NAME@V parsing, schema-version refusal, the audit chain (edit, delete a
 * middle entry, delete the last entry, with and without fixing the meta
 * head; the anchor deleted, replaced or rewritten while a handle holds it
 * open), re-index from the store (a deleted registry.db, a ref moved behind
 * the registry's back), rollback rules and the toolset generation seen
 * from a second connection. Versions are put into the store directly, as
 * the pipeline would have committed them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "registry/registry.h"
#include "store/store.h"
#include "test_support.h"

static void write_file(const char *home, const char *name, const char *text)
{
	_cleanup_free_ char *p = tg_path_join(home, name);
	assert_int_equal(tg_mkdir_p(home, 0700), 0);
	assert_int_equal(tg_file_write_atomic(p, text, strlen(text), 0600), 0);
}

static const char *good_manifest =
	"{\"name\":\"word_count\",\"description\":\"Count words\","
	"\"input_schema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
	"\"required\":[\"text\"]},\"source\":\"wc.c\","
	"\"tests\":[{\"name\":\"two\",\"args\":{\"text\":\"a b\"},\"expect\":{\"words\":2}},"
	"{\"name\":\"bad\",\"args\":{\"text\":3},\"expect_error\":true}],"
	"\"limits\":{\"timeout_ms\":2000,\"memory_mb\":64},\"capabilities\":[]}";

/* Put one version into the store as the pipeline commits it; caps is the
 * JSON text of its capabilities (NULL: none). */
static unsigned put_version_caps(tg_store *s, const char *tool, const char *status,
				 const char *src, const char *caps)
{
	char manifest[600];

	snprintf(manifest, sizeof(manifest),
		 "{\"name\":\"%s\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},"
		 "\"source\":\"tool.c\",\"tests\":[{\"name\":\"t\",\"args\":{},\"expect\":1}],"
		 "\"capabilities\":%s}",
		 tool, caps ? caps : "[]");
	return tgt_store_put_version(s, tool, status, src, manifest);
}

static unsigned put_version(tg_store *s, const char *tool, const char *status, const char *src)
{
	return put_version_caps(s, tool, status, src, NULL);
}

/* ---- manifest validation ------------------------------------------------ */

static void check_bad(tg_registry *r, const char *manifest, const char *source, size_t len,
		      int code, const char *msg)
{
	_cleanup_json_ json_t *m = NULL;
	int rc;

	tg_error_clear();
	rc = tg_json_parse(&m, manifest, strlen(manifest), NULL);
	if (rc < 0) {
		assert_int_equal(rc, code);
		assert_non_null(strstr(tg_error_last()->message, msg));
		return;
	}
	rc = tg_manifest_validate(r, m, source, len);
	if (rc != code || !strstr(tg_error_last()->message, msg))
		fail_msg("manifest %.120s: got %d \"%s\", want %d \"%s\"", manifest, rc,
			 tg_error_last()->message, code, msg);
}

static char *with(const char *key_value_replacement, const char *from)
{
	/* replace the first occurrence of `from` in good_manifest */
	const char *p = strstr(good_manifest, from);
	char *o;
	assert_non_null(p);
	assert_true(asprintf(&o, "%.*s%s%s", (int)(p - good_manifest), good_manifest,
			     key_value_replacement, p + strlen(from)) > 0);
	return o;
}

static void test_manifest(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	tg_registry *r = NULL;
	_cleanup_json_ json_t *m = NULL;
	const char *src = "int main(void){return 0;}\n";
	size_t n = strlen(src);
	char *big, *tests100;
	struct {
		const char *repl, *from;
		int code;
		const char *msg;
	} cases[] = {
		{ "\"name\":\"../x\"", "\"name\":\"word_count\"", TG_ERR_INVALID, "name: must match" },
		{ "\"name\":\"a;drop table\"", "\"name\":\"word_count\"", TG_ERR_INVALID, "name: must match" },
		{ "\"name\":\"Word\"", "\"name\":\"word_count\"", TG_ERR_INVALID, "name: must match" },
		{ "\"name\":\"create_tool\"", "\"name\":\"word_count\"", TG_ERR_INVALID, "reserved" },
		{ "\"name\":\"tool_history\"", "\"name\":\"word_count\"", TG_ERR_INVALID, "reserved" },
		{ "\"name\":5", "\"name\":\"word_count\"", TG_ERR_INVALID, "name: must be" },
		{ "\"nam\":\"x\"", "\"name\":\"word_count\"", TG_ERR_INVALID, "nam" },
		{ "\"description\":\"\"", "\"description\":\"Count words\"", TG_ERR_INVALID, "description" },
		{ "\"description\":[]", "\"description\":\"Count words\"", TG_ERR_INVALID, "description" },
		{ "\"input_schema\":{\"type\":\"string\"},\"x_\":{", "\"input_schema\":{", TG_ERR_INVALID, "" },
		{ "\"timeout_ms\":999999999", "\"timeout_ms\":2000", TG_ERR_LIMIT, "limits.timeout_ms" },
		{ "\"timeout_ms\":\"2s\"", "\"timeout_ms\":2000", TG_ERR_INVALID, "limits.timeout_ms" },
		{ "\"memory_mb\":100000", "\"memory_mb\":64", TG_ERR_LIMIT, "limits.memory_mb" },
		{ "\"memory_mb\":1", "\"memory_mb\":64", TG_ERR_INVALID, "limits.memory_mb" },
		{ "\"cpu\":1", "\"memory_mb\":64", TG_ERR_INVALID, "cpu" },
		{ "\"capabilities\":[\"network\"]", "\"capabilities\":[]", TG_ERR_INVALID, "unknown capability" },
		{ "\"capabilities\":[\"workspace:read\"]", "\"capabilities\":[]", TG_ERR_INVALID,
		  "needs \"workspace\"" },
		{ "\"capabilities\":\"workspace:read\"", "\"capabilities\":[]", TG_ERR_INVALID,
		  "capabilities: must be an array" },
		{ "\"tests\":[]", "\"tests\":[{\"name\":\"two\",\"args\":{\"text\":\"a b\"},"
				  "\"expect\":{\"words\":2}},{\"name\":\"bad\",\"args\":{\"text\":3},"
				  "\"expect_error\":true}]", TG_ERR_INVALID, "at least one" },
		{ "\"text\":5},\"expect\"", "\"text\":\"a b\"},\"expect\"", TG_ERR_INVALID,
		  "tests[0] (arguments do not match input_schema)" },
		{ "\"expect_error\":false", "\"expect_error\":true", TG_ERR_INVALID,
		  "tests[1].expect_error: must be true" },
		{ "\"expect_error\":true,\"expect\":1", "\"expect_error\":true", TG_ERR_INVALID,
		  "both" },
		{ "\"name\":\"two\",\"args\":{\"text\":\"x\"},\"expect\":1},{\"name\":\"two\"",
		  "\"name\":\"two\"", TG_ERR_INVALID, "duplicate" },
		{ "\"args\":[]", "\"args\":{\"text\":\"a b\"}", TG_ERR_INVALID, "tests[0].args: must be an object" },
		{ "\"nme\":\"two\"", "\"name\":\"two\"", TG_ERR_INVALID, "tests[0]" },
		{ "\"description\":\"a\\u001b[2Jb\"", "\"description\":\"Count words\"", TG_ERR_INVALID,
		  "control characters" },
		{ "\"name\":\"t\\u0007\"", "\"name\":\"two\"", TG_ERR_INVALID,
		  "tests[0].name: must not hold control" },
	};
	size_t i;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	assert_int_equal(tg_json_parse(&m, good_manifest, strlen(good_manifest), NULL), 0);
	assert_int_equal(tg_manifest_validate(r, m, src, n), 0);
	for (i = 0; i < TG_ARRAY_SIZE(cases); i++) {
		char *t = with(cases[i].repl, cases[i].from);
		check_bad(r, t, src, n, cases[i].code, cases[i].msg);
		free(t);
	}
	/* malformed JSON and duplicate keys never reach validation */
	check_bad(r, "{\"name\":\"a\",\"name\":\"b\"}", src, n, TG_ERR_INVALID, "duplicate");
	check_bad(r, "{\"name\":", src, n, TG_ERR_INVALID, "invalid JSON");
	check_bad(r, "{\"name\":\"a\xff\"}", src, n, TG_ERR_INVALID, "invalid JSON");
	/* the source */
	check_bad(r, good_manifest, "", 0, TG_ERR_INVALID, "source: is empty");
	check_bad(r, good_manifest, "int x;\xc3\x28", 8, TG_ERR_INVALID, "UTF-8");
	check_bad(r, good_manifest, "int x;\0y", 8, TG_ERR_INVALID, "NUL");
	check_bad(r, good_manifest, "int x;\n/* \x1b]0;owned\x07 */\n", 24, TG_ERR_INVALID,
		  "line 2 holds the control character 0x001B");
	/* a lone carriage return could hide code from a reviewer's terminal */
	check_bad(r, good_manifest, "int x;\r\nint y; /* a */\rint z;\n", 30, TG_ERR_INVALID,
		  "line 2 holds the control character 0x000D");
	/* Trojan Source: a right-to-left override */
	check_bad(r, good_manifest, "int x; /* \xe2\x80\xae } */\n", 19, TG_ERR_INVALID,
		  "U+202E");
	check_bad(r, good_manifest, "int x; /* \xe2\x81\xa6 */\n", 17, TG_ERR_INVALID, "U+2066");
	{
		char *t = with("\"description\":\"a\xe2\x80\xae" "b\"", "\"description\":\"Count words\"");
		check_bad(r, t, src, n, TG_ERR_INVALID, "bidirectional");
		free(t);
	}
	/* newline and tab are fine in a description */
	{
		char *t = with("\"description\":\"a\\n\\tb\"", "\"description\":\"Count words\"");
		json_t *mm = NULL;
		assert_int_equal(tg_json_parse(&mm, t, strlen(t), NULL), 0);
		assert_int_equal(tg_manifest_validate(r, mm, src, n), 0);
		json_decref(mm);
		free(t);
	}
	big = malloc(300 * 1024);
	assert_non_null(big);
	memset(big, ' ', 300 * 1024);
	check_bad(r, good_manifest, big, 300 * 1024, TG_ERR_LIMIT, "source: 307200 bytes exceeds");
	free(big);
	/* 101 tests */
	{
		tg_buf b = TG_BUF_INIT(0);
		assert_int_equal(tg_buf_puts(&b, "{\"name\":\"t\",\"description\":\"d\",\"input_schema\":"
						 "{\"type\":\"object\"},\"tests\":["), 0);
		for (i = 0; i < 101; i++)
			assert_int_equal(tg_buf_printf(&b, "%s{\"name\":\"t%zu\",\"args\":{},\"expect\":1}",
						       i ? "," : "", i), 0);
		assert_int_equal(tg_buf_puts(&b, "]}"), 0);
		tests100 = tg_buf_detach(&b, NULL);
		check_bad(r, tests100, src, n, TG_ERR_LIMIT, "at most 100");
		free(tests100);
	}
	tg_registry_free(r);
	tgt_home_remove(home);
}

static void test_manifest_load(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	_cleanup_free_ char *dir = tg_path_join(home, "tool");
	_cleanup_free_ char *mpath = tg_path_join(dir, "tool.json");
	_cleanup_free_ char *outside = tg_path_join(home, "secret.c");
	_cleanup_free_ char *link = tg_path_join(dir, "link.c");
	json_t *m = NULL;
	char *src = NULL, *t;
	size_t len;

	(void)state;
	write_file(dir, "wc.c", "int main(void){return 0;}\n");
	write_file(home, "secret.c", "int secret;\n");
	write_file(dir, "tool.json", good_manifest);
	assert_int_equal(tg_manifest_load(&m, &src, &len, dir), 0);
	assert_int_equal(len, 26);
	json_decref(m);
	free(src);
	assert_int_equal(tg_manifest_load(&m, &src, &len, mpath), 0);
	json_decref(m);
	free(src);
	t = with("\"source\":\"../secret.c\"", "\"source\":\"wc.c\"");
	write_file(dir, "tool.json", t);
	free(t);
	assert_int_equal(tg_manifest_load(&m, &src, &len, dir), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, ".."));
	t = with("\"source\":\"/etc/passwd\"", "\"source\":\"wc.c\"");
	write_file(dir, "tool.json", t);
	free(t);
	assert_int_equal(tg_manifest_load(&m, &src, &len, dir), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "relative"));
	assert_int_equal(symlink(outside, link), 0);
	t = with("\"source\":\"link.c\"", "\"source\":\"wc.c\"");
	write_file(dir, "tool.json", t);
	free(t);
	assert_int_equal(tg_manifest_load(&m, &src, &len, dir), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "outside"));
	tgt_home_remove(home);
}

static void test_config_and_ref(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	tg_registry *r = NULL;
	char *name = NULL;
	unsigned v = 0;
	const tg_config *c;

	(void)state;
	write_file(home, "config.json", "{\"max_timeout_ms\":5000,\"workspace\":\"/tmp\","
					"\"session_max_calls\":7,\"session_hide_write_tools\":true}");
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	c = tg_registry_config(r);
	assert_int_equal(c->max_timeout_ms, 5000);
	assert_int_equal(c->max_memory_mb, 256);
	assert_string_equal(c->workspace, "/tmp");
	assert_int_equal(c->session_max_calls, 7);
	assert_int_equal(c->session_hide_write_tools, 1);
	tg_registry_free(r);
	write_file(home, "config.json", "{\"max_timeout\":5000}");
	assert_int_equal(tg_registry_open(&r, home, 0), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "max_timeout"));
	write_file(home, "config.json", "{\"workspace\":\"relative\"}");
	assert_int_equal(tg_registry_open(&r, home, 0), TG_ERR_INVALID);
	write_file(home, "config.json", "{\"max_memory_mb\":0}");
	assert_int_equal(tg_registry_open(&r, home, 0), TG_ERR_INVALID);
	write_file(home, "config.json", "{}");
	/* a database newer than this binary is refused */
	tgt_sql(home, "PRAGMA user_version = 99");
	assert_int_equal(tg_registry_open(&r, home, 0), TG_ERR_UNAVAILABLE);
	assert_non_null(strstr(tg_error_last()->message, "newer"));
	tgt_sql(home, "PRAGMA user_version = 7");
	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	tg_registry_free(r);

	{
		char *t = tg_registry_scrub("a\x1b[31mb\tc\nd\xe2\x80\xae" "e\xe2\x81\xa7" "f\xd8\x9c" "g\x7fh\xc3\xa9");
		assert_string_equal(t, "a^[[31mb\tc\nd<U+202E>e<U+2067>f<U+061C>g^?h\xc3\xa9");
		free(t);
	}
	assert_int_equal(tg_registry_parse_ref(&name, &v, "word_count@12"), 0);
	assert_string_equal(name, "word_count");
	assert_int_equal(v, 12);
	free(name);
	assert_int_equal(tg_registry_parse_ref(&name, &v, "word_count"), 0);
	assert_int_equal(v, 0);
	free(name);
	assert_int_equal(tg_registry_parse_ref(&name, &v, "word_count@0"), TG_ERR_INVALID);
	assert_int_equal(tg_registry_parse_ref(&name, &v, "word_count@1x"), TG_ERR_INVALID);
	assert_int_equal(tg_registry_parse_ref(&name, &v, "../x@1"), TG_ERR_INVALID);
	assert_int_equal(tg_registry_parse_ref(&name, &v, "@1"), TG_ERR_INVALID);
	/* no home: not created by a read command */
	{
		char *h2 = tgt_home_make("tg_registry_unit");
		assert_int_equal(tg_registry_open(&r, h2, 0), TG_ERR_NOTFOUND);
		tgt_home_remove(h2);
	}
	tgt_home_remove(home);
}

/* ---- the audit chain ---------------------------------------------------- */

static tg_registry *home_with_audit(const char *home, int n)
{
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	int i;

	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	for (i = 0; i < n; i++) {
		_cleanup_json_ json_t *d = json_pack("{s:i}", "i", i);
		assert_int_equal(tg_registry_audit(r, &who, "test_event", "word_count", d), 0);
	}
	return r;
}

static int verify_has(tg_registry *r, const char *needle)
{
	_cleanup_json_ json_t *v = NULL;
	json_t *p;
	size_t i;
	int found = 0;

	assert_int_equal(tg_registry_verify(&v, r), 0);
	json_array_foreach(json_object_get(v, "problems"), i, p) {
		if (needle && strstr(json_string_value(p), needle))
			found = 1;
	}
	if (!needle)
		return json_is_true(json_object_get(v, "ok"));
	return found && json_is_false(json_object_get(v, "ok"));
}

static void reopen(tg_registry **r, const char *home)
{
	tg_registry_free(*r);
	*r = NULL;
	assert_int_equal(tg_registry_open(r, home, 0), 0);
}

static void test_audit_chain(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	tg_registry *r = home_with_audit(home, 5);
	_cleanup_json_ json_t *log = NULL;
	tg_actor who = { "mcp", "s1" };

	(void)state;
	assert_true(verify_has(r, NULL));
	assert_int_equal(tg_registry_log(&log, r, 2), 0);
	assert_int_equal(json_array_size(log), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(log, 0), "seq")), 4);
	/* the table refuses edits through SQL as long as its triggers stand */
	{
		_cleanup_free_ char *p = tg_path_join(home, "registry.db");
		sqlite3 *db = NULL;
		assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
		assert_int_not_equal(sqlite3_exec(db, "DELETE FROM audit WHERE seq = 5", NULL, NULL, NULL),
				     SQLITE_OK);
		assert_int_not_equal(sqlite3_exec(db, "UPDATE audit SET event = 'x'", NULL, NULL, NULL),
				     SQLITE_OK);
		sqlite3_close(db);
	}
	/* edit one entry */
	tgt_sql(home, "DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;"
		      "UPDATE audit SET details = '{\"i\":99}' WHERE seq = 3");
	reopen(&r, home);
	assert_true(verify_has(r, "entry 3 was modified"));
	tg_registry_free(r);
	tgt_home_remove(home);

	/* delete a middle entry */
	home = tgt_home_make("tg_registry_unit");
	r = home_with_audit(home, 5);
	tgt_sql(home, "DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE seq = 2");
	reopen(&r, home);
	assert_true(verify_has(r, "entries 2..2 are missing"));
	tg_registry_free(r);
	tgt_home_remove(home);

	/* delete the last entry: the meta head catches it */
	home = tgt_home_make("tg_registry_unit");
	r = home_with_audit(home, 5);
	tgt_sql(home, "DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE seq = 5");
	reopen(&r, home);
	assert_true(verify_has(r, "log ends at entry 4 but its recorded head is entry 5"));
	tg_registry_free(r);
	tgt_home_remove(home);

	/* delete the last entry and fix the meta head too: the anchor catches it */
	home = tgt_home_make("tg_registry_unit");
	r = home_with_audit(home, 5);
	tgt_sql(home, "DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE seq = 5;"
		      "UPDATE meta SET value = 4 WHERE key = 'audit_seq';"
		      "UPDATE meta SET value = (SELECT hash FROM audit WHERE seq = 4) "
		      "WHERE key = 'audit_head'");
	reopen(&r, home);
	assert_true(verify_has(r, "anchor records entry 5 but the log ends at entry 4"));
	tg_registry_free(r);
	tgt_home_remove(home);

	/* a replaced registry.db is named; an untouched chain stays ok */
	home = tgt_home_make("tg_registry_unit");
	r = home_with_audit(home, 3);
	assert_int_equal(tg_registry_audit(r, &who, "budget_denied", NULL, NULL), 0);
	assert_true(verify_has(r, NULL));
	tg_registry_free(r);
	tgt_home_remove(home);
}

/* The handle holds audit.anchor open between appends (record/audit_guard.c):
 * the name is looked up at each append all the same, so an anchor deleted,
 * replaced by a rename (another inode) or rewritten in place while the
 * handle stays open is each recorded as a break by the next append. */
static void put_anchor(const char *path, const char *db_id, int seq, int in_place)
{
	_cleanup_free_ char *tmp = NULL;
	char rec[256];
	int fd, k;

	memset(rec, ' ', sizeof(rec));
	k = snprintf(rec, sizeof(rec), "{\"db_id\":\"%s\",\"seq\":%d,\"hash\":\"%064d\"}",
		     db_id, seq, 0);
	rec[k] = ' ';
	rec[sizeof(rec) - 1] = '\n';
	assert_true(asprintf(&tmp, "%s.new", path) > 0);
	fd = in_place ? open(path, O_WRONLY) : open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, rec, sizeof(rec), 0), (ssize_t)sizeof(rec));
	close(fd);
	if (!in_place)
		assert_int_equal(rename(tmp, path), 0);
}

/* The anchor put to entry seq with a wrong hash (another inode unless
 * in_place): the next append records it as a break, entry seq + 1. */
static void anchor_break(tg_registry *r, const char *path, const char *db_id, int seq,
			 int in_place)
{
	tg_actor who = { "cli", NULL };
	struct stat before, after;
	char needle[160];

	assert_int_equal(stat(path, &before), 0);
	put_anchor(path, db_id, seq, in_place);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(after.st_ino == before.st_ino, in_place);
	assert_int_equal(tg_registry_audit(r, &who, "test_event", NULL, NULL), 0);
	snprintf(needle, sizeof(needle), "entry %d records a broken chain found at an append: "
		 "entry %d did not match the anchor's hash", seq + 1, seq);
	assert_true(verify_has(r, needle));
}

static void test_anchor_held(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	_cleanup_free_ char *path = tg_path_join(home, "audit.anchor");
	tg_registry *r = home_with_audit(home, 3);
	tg_actor who = { "cli", NULL };
	json_t *a;
	struct stat st;
	char db_id[33];

	(void)state;
	a = json_load_file(path, 0, NULL);
	assert_non_null(a);
	snprintf(db_id, sizeof(db_id), "%s", json_string_value(json_object_get(a, "db_id")));
	assert_int_equal(json_integer_value(json_object_get(a, "seq")), 3);
	json_decref(a);
	assert_true(verify_has(r, NULL));

	/* deleted: found missing (entries 4 break, 5 event), then written again */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(tg_registry_audit(r, &who, "test_event", NULL, NULL), 0);
	assert_true(verify_has(r, "entry 4 records a broken chain found at an append: the "
				  "anchor file was missing beside a log of 3 entries"));
	assert_int_equal(stat(path, &st), 0);

	/* replaced by a rename, the record naming entry 5 with a wrong hash:
	 * the new file is read, not the one held (entries 6 break, 7 event);
	 * then rewritten in place (same inode) naming entry 7 */
	anchor_break(r, path, db_id, 5, 0);
	anchor_break(r, path, db_id, 7, 1);

	/* the anchor moved on to the head again; no new break */
	a = json_load_file(path, 0, NULL);
	assert_non_null(a);
	assert_int_equal(json_integer_value(json_object_get(a, "seq")), 9);
	json_decref(a);
	assert_int_equal(tg_registry_audit(r, &who, "test_event", NULL, NULL), 0);
	assert_false(verify_has(r, "entry 10 records a broken chain"));
	tg_registry_free(r);
	tgt_home_remove(home);
}

/* ---- re-index, rollback, generation -------------------------------------- */

static void test_reindex_rollback_generation(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	_cleanup_free_ char *db = tg_path_join(home, "registry.db");
	tg_registry *r = NULL, *r2 = NULL;
	tg_store *s;
	tg_actor who = { "cli", NULL };
	json_t *j = NULL;
	uint64_t g1, g2, g3;
	unsigned act;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	tg_registry_free(r);
	s = tgt_store_open(home);
	assert_int_equal(put_version(s, "adder", "active", "int a1;\n"), 1);
	assert_int_equal(put_version(s, "adder", "rejected", "int a2;\n"), 2);
	assert_int_equal(put_version(s, "adder", "active", "int a3;\n"), 3);
	assert_int_equal(put_version(s, "adder", "pending", "int a4;\n"), 4);
	assert_int_equal(tg_store_set_active(s, "adder", 1, 0, "t"), 0);
	assert_int_equal(tg_store_set_active(s, "adder", 3, 1, "t"), 0);

	/* open re-indexes what the registry lacks */
	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	assert_int_equal(tg_registry_list(&j, r), 0);
	assert_int_equal(json_array_size(j), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "version")), 3);
	json_decref(j);
	assert_int_equal(tg_registry_show(&j, r, "adder", 4), 0);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "pending");
	assert_string_equal(json_string_value(json_object_get(j, "source")), "int a4;\n");
	json_decref(j);
	assert_int_equal(tg_registry_show(&j, r, "adder", 2), 0);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "rejected");
	json_decref(j);
	assert_true(verify_has(r, NULL));
	/* versions that appeared in the store behind the registry's back are audited */
	assert_int_equal(tg_registry_log(&j, r, 0), 0);
	{
		char *log = tg_json_dump(j);
		assert_non_null(strstr(log, "\"event\":\"reindex_version\""));
		assert_non_null(strstr(log, "\"event\":\"reindex\""));
		free(log);
	}
	json_decref(j);

	/* rollback rules */
	assert_int_equal(tg_registry_rollback(&j, r, "adder", 2, 0, &who), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "did not pass"));
	assert_int_equal(tg_registry_rollback(&j, r, "adder", 4, 0, &who), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "approve"));
	/* the active version: idempotent, nothing changes (issue 29) */
	assert_int_equal(tg_registry_rollback(&j, r, "adder", 3, 0, &who), 0);
	assert_true(json_is_true(json_object_get(j, "already_active")));
	assert_int_equal(json_integer_value(json_object_get(j, "from_version")), 3);
	json_decref(j);
	assert_int_equal(tg_registry_rollback(&j, r, "adder", 9, 0, &who), TG_ERR_NOTFOUND);
	assert_int_equal(tg_registry_rollback(&j, r, "nosuch", 0, 0, &who), TG_ERR_NOTFOUND);

	/* the generation changes when another connection changes the active set */
	assert_int_equal(tg_registry_open(&r2, home, 0), 0);
	assert_int_equal(tg_registry_toolset_generation(&g1, r), 0);
	assert_int_equal(tg_registry_rollback(&j, r2, "adder", 0, 0, &who), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 1);
	json_decref(j);
	assert_int_equal(tg_registry_toolset_generation(&g2, r), 0);
	assert_true(g2 != g1);
	assert_int_equal(tg_store_get_active(&act, NULL, s, "adder"), 0);
	assert_int_equal(act, 1);
	/* approve the pending v4: it becomes active */
	assert_int_equal(tg_registry_approve(&j, r2, "adder", 4, 0, &who), 0);
	json_decref(j);
	assert_int_equal(tg_registry_approve(&j, r2, "adder", 4, 0, &who), TG_ERR_INVALID);
	assert_int_equal(tg_registry_toolset_generation(&g3, r), 0);
	assert_true(g3 != g2);
	assert_int_equal(tg_registry_history(&j, r, "adder"), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "active")), 4);
	assert_true(json_array_size(json_object_get(j, "events")) >= 3);
	json_decref(j);
	tg_registry_free(r2);

	/* someone moves the ref behind the registry's back: open follows, verify notes */
	assert_int_equal(tg_store_set_active(s, "adder", 3, 4, "t"), 0);
	reopen(&r, home);
	assert_int_equal(tg_registry_show(&j, r, "adder", 0), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 3);
	json_decref(j);
	assert_int_equal(tg_registry_verify(&j, r), 0);
	assert_true(json_is_true(json_object_get(j, "ok")));
	{
		char *notes = tg_json_dump(json_object_get(j, "notes"));
		assert_non_null(strstr(notes, "follows the store"));
		free(notes);
	}
	json_decref(j);
	tg_registry_free(r);
	r = NULL;

	/* delete registry.db: everything but the logs comes back from git */
	assert_int_equal(unlink(db), 0);
	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	assert_int_equal(tg_registry_show(&j, r, "adder", 0), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 3);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "active");
	json_decref(j);
	assert_int_equal(tg_registry_verify(&j, r), 0);
	/* the lost history is a problem until a person acknowledges it */
	assert_false(json_is_true(json_object_get(j, "ok")));
	{
		char *p = tg_json_dump(json_object_get(j, "problems"));
		assert_non_null(strstr(p, "rebuilt from the store"));
		free(p);
	}
	json_decref(j);
	{
		tg_actor ack_who = { "cli", NULL };
		assert_int_equal(tg_registry_acknowledge_rebuild(&j, r, &ack_who), 0);
		json_decref(j);
		assert_int_equal(tg_registry_acknowledge_rebuild(&j, r, &ack_who), TG_ERR_EXISTS);
	}
	assert_int_equal(tg_registry_verify(&j, r), 0);
	assert_true(json_is_true(json_object_get(j, "ok")));
	{
		char *notes = tg_json_dump(json_object_get(j, "notes"));
		assert_non_null(strstr(notes, "rebuilt from the store"));
		assert_non_null(strstr(notes, "(acknowledged)"));
		free(notes);
	}
	json_decref(j);
	/* the registry disagreeing with the store is reported */
	tg_registry_free(r);
	tgt_sql(home, "UPDATE versions SET commit_id = 'bogus' WHERE version = 2");
	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	assert_true(verify_has(r, "adder v2: commit bogus"));
	tg_registry_free(r);
	/* a tool that cannot be re-indexed does not lock every command out */
	tgt_sql(home, "DELETE FROM test_results; DELETE FROM findings; DELETE FROM events;"
		      "DELETE FROM versions WHERE version = 3; UPDATE tools SET active_version = 0");
	assert_int_equal(tg_registry_open(&r, home, 0), 0);
	assert_true(verify_has(r, "adder: could not be re-indexed from the store"));
	assert_true(verify_has(r, "adder v3 is in the store but not in the registry"));
	{
		/* the audit anchor did not move to an entry that was rolled back */
		_cleanup_json_ json_t *v = NULL;
		_cleanup_free_ char *p = NULL;
		assert_int_equal(tg_registry_verify(&v, r), 0);
		p = tg_json_dump(json_object_get(v, "problems"));
		assert_null(strstr(p, "audit"));
	}
	tg_registry_free(r);
	tg_store_free(s);
	tgt_home_remove(home);
}

/* Random byte mutations of a good manifest: validation never crashes and
 * only ever answers 0, TG_ERR_INVALID or TG_ERR_LIMIT (run under ASan in CI). */
static void test_manifest_mutations(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	tg_registry *r = NULL;
	const char *src = "int main(void){return 0;}\n";
	size_t len = strlen(good_manifest), i;
	unsigned seed = 12345;
	size_t validated = 0;
	char *buf = malloc(len + 1);
	static const char alphabet[] = "{}[]\",:0123456789-.eEtrufalsn \\/\x01\xff\xc3";

	(void)state;
	assert_non_null(buf);
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	for (i = 0; i < 3000; i++) {
		json_t *m = NULL;
		int k, rc;
		memcpy(buf, good_manifest, len + 1);
		for (k = 0; k < 1 + (int)(i % 4); k++) {
			seed = seed * 1103515245u + 12345u;
			buf[(seed >> 8) % len] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		if (tg_json_parse(&m, buf, len, NULL) < 0)
			continue;
		validated++;
		rc = tg_manifest_validate(r, m, src, strlen(src));
		if (rc != 0 && rc != TG_ERR_INVALID && rc != TG_ERR_LIMIT)
			fail_msg("mutation %zu: unexpected code %d (%s)", i, rc, tg_error_last()->message);
		if (rc < 0 && !tg_error_last()->message[0])
			fail_msg("mutation %zu: refusal without a message", i);
		json_decref(m);
	}
	/* enough of the mutants are JSON that validation itself is exercised */
	assert_true(validated > 500);
	free(buf);
	tg_registry_free(r);
	tgt_home_remove(home);
}

/* ---- approvals bound to versions ------------------------------------------ */

static int has_event(tg_registry *r, const char *event)
{
	json_t *j = NULL;
	char *log;
	char want[80];
	int found;

	assert_int_equal(tg_registry_log(&j, r, 0), 0);
	log = tg_json_dump(j);
	snprintf(want, sizeof(want), "\"event\":\"%s\"", event);
	found = strstr(log, want) != NULL;
	free(log);
	json_decref(j);
	return found;
}

static void test_approval_binding(void **state)
{
	char *home = tgt_home_make("tg_registry_unit");
	tg_registry *r = NULL;
	tg_store *s;
	tg_actor who = { "cli", NULL };
	json_t *j = NULL;

	(void)state;
	assert_int_equal(tg_registry_open(&r, home, 1), 0);
	tg_registry_free(r);
	s = tgt_store_open(home);
	assert_int_equal(put_version_caps(s, "capper", "pending", "int c1;\n", "[\"workspace:read\"]"), 1);
	assert_int_equal(put_version_caps(s, "capper", "pending", "int c2;\n", "[\"workspace:read\"]"), 2);
	assert_int_equal(put_version_caps(s, "capper", "pending", "int c3;\n", "[\"workspace:write\"]"), 3);
	assert_int_equal(put_version(s, "capper", "active", "int c4;\n"), 4);
	assert_int_equal(tg_store_set_active(s, "capper", 4, 0, "t"), 0);
	assert_int_equal(tg_registry_open(&r, home, 0), 0);

	/* three versions wait for a person */
	assert_int_equal(tg_registry_pending(&j, r), 0);
	assert_int_equal(json_array_size(j), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 2), "version")), 3);
	json_decref(j);

	/* approving v1 while the newer v4 is active does not replace v4 */
	assert_int_equal(tg_registry_approve(&j, r, "capper", 1, 0, &who), 0);
	assert_false(json_is_true(json_object_get(j, "activated")));
	assert_string_equal(json_string_value(json_object_get(j, "status")), "inactive");
	assert_int_equal(json_integer_value(json_object_get(j, "active_version")), 4);
	assert_int_equal(strlen(json_string_value(json_object_get(j, "approval_hash"))), 64);
	json_decref(j);
	assert_int_equal(tg_registry_approve(&j, r, "capper", 1, 0, &who), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "already approved"));
	/* --activate replaces it */
	assert_int_equal(tg_registry_approve(&j, r, "capper", 2, TG_APPROVE_ACTIVATE, &who), 0);
	assert_true(json_is_true(json_object_get(j, "activated")));
	assert_int_equal(json_integer_value(json_object_get(j, "from_version")), 4);
	json_decref(j);

	/* v1's approval is not v3's: pending, refused */
	assert_int_equal(tg_registry_rollback(&j, r, "capper", 3, 0, &who), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message,
			    "capper v3 awaits approval of its capabilities: use 'toolgate approve "
			    "capper@3'");
	assert_int_equal(tg_registry_approve(&j, r, "capper", 3, 0, &who), 0);
	json_decref(j);

	/* a session hiding write tools neither reaches nor defaults to v3 */
	assert_int_equal(tg_registry_rollback(&j, r, "capper", 0, TG_ROLLBACK_HIDE_WRITE, &who), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 2);
	json_decref(j);
	assert_int_equal(tg_registry_rollback(&j, r, "capper", 3, TG_ROLLBACK_HIDE_WRITE, &who),
			 TG_ERR_NOTFOUND);
	assert_string_equal(tg_error_last()->message,
			    "capper has no version 3 visible to this session");

	/* deny: final, audited, out of the pending list */
	assert_int_equal(tg_registry_deny(&j, r, "capper", 2, "no", &who), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "is the active version"));
	assert_int_equal(tg_registry_deny(&j, r, "capper", 3, "too wide", &who), 0);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "denied");
	json_decref(j);
	assert_int_equal(tg_registry_deny(&j, r, "capper", 3, NULL, &who), TG_ERR_INVALID);
	assert_int_equal(tg_registry_rollback(&j, r, "capper", 3, 0, &who), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message,
			    "capper v3 was denied by a person: it can never be activated");
	assert_int_equal(tg_registry_approve(&j, r, "capper", 3, 0, &who), TG_ERR_INVALID);
	assert_int_equal(tg_registry_pending(&j, r), 0);
	assert_int_equal(json_array_size(j), 0);
	json_decref(j);
	assert_true(has_event(r, "deny"));
	assert_true(has_event(r, "approve_version"));
	assert_true(verify_has(r, NULL));
	tg_registry_free(r);
	tg_store_free(s);
	tgt_home_remove(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_manifest_load),
		cmocka_unit_test(test_manifest_mutations),
		cmocka_unit_test(test_config_and_ref),
		cmocka_unit_test(test_audit_chain),
		cmocka_unit_test(test_anchor_held),
		cmocka_unit_test(test_reindex_rollback_generation),
		cmocka_unit_test(test_approval_binding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
