/*
 * tests/common/test_support.c: the helpers of test_support.h, shared by the
 * registry, bridge and store-backed C tests that used to carry their own
 * copies: a throw-away home, SQL on its registry.db from a second
 * connection, and a version committed to its store as the pipeline does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/common.h"
#include "test_support.h"

char *tgt_home_make(const char *prefix)
{
	char tmpl[256];
	char *home;

	snprintf(tmpl, sizeof(tmpl), "/tmp/%.200s_XXXXXX", prefix);
	assert_non_null(mkdtemp(tmpl));
	home = tg_path_join(tmpl, "home");
	assert_non_null(home);
	return home;
}

void tgt_home_remove(char *home)
{
	char cmd[600];
	char *slash = strrchr(home, '/');

	*slash = '\0';
	snprintf(cmd, sizeof(cmd), "rm -rf '%.500s'", home);
	assert_int_equal(system(cmd), 0);
	free(home);
}

/* home/registry.db opened on its own connection, with a 10 s busy wait. */
static sqlite3 *open_db(const char *home)
{
	_cleanup_free_ char *p = tg_path_join(home, "registry.db");
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	return db;
}

void tgt_sql(const char *home, const char *stmt)
{
	sqlite3 *db = open_db(home);
	char *err = NULL;

	if (sqlite3_exec(db, stmt, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("sql %s: %s", stmt, err);
	sqlite3_close(db);
}

int64_t tgt_sql_int(const char *home, const char *query)
{
	sqlite3 *db = open_db(home);
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

tg_store *tgt_store_open(const char *home)
{
	_cleanup_free_ char *p = tg_path_join(home, "store.git");
	tg_store *s = NULL;

	assert_int_equal(tg_store_open(&s, p, 1), 0);
	return s;
}

unsigned tgt_store_put_version(tg_store *s, const char *tool, const char *status,
			       const char *src, const char *manifest)
{
	tg_store_version *v = NULL;
	char hash[65];
	tg_store_file files[4];
	tg_store_trailer tr[4];
	tg_store_put_opts o = { 0 };
	tg_sha256 h;
	unsigned ver;

	tg_sha256_init(&h);
	tg_sha256_update(&h, "toolgate-build-v1\n", 18);
	tg_sha256_update(&h, src, strlen(src));
	tg_sha256_final_hex(&h, hash);
	files[0] = (tg_store_file){ "tool.json", manifest, strlen(manifest) };
	files[1] = (tg_store_file){ "tool.c", src, strlen(src) };
	files[2] = (tg_store_file){ "analysis.json", "{\"verdict\":\"pass\",\"findings\":[]}", 33 };
	files[3] = (tg_store_file){ "tests.json", "[]", 2 };
	tr[0] = (tg_store_trailer){ "Toolgate-Status", status };
	tr[1] = (tg_store_trailer){ "Toolgate-Verdict", strcmp(status, "rejected") ? "pass" : "reject" };
	tr[2] = (tg_store_trailer){ "Toolgate-Content-Hash", hash };
	tr[3] = (tg_store_trailer){ "Toolgate-Submitter", "cli" };
	o.tool = tool;
	o.files = files;
	o.nfiles = 4;
	o.trailers = tr;
	o.ntrailers = 4;
	o.subject = "test";
	assert_int_equal(tg_store_put(&v, s, &o), 0);
	ver = v->version;
	tg_store_version_free(v);
	return ver;
}
