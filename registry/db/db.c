/*
 * registry/db/db.c: the statement helpers every layer of registry/ uses:
 * SQLite errors mapped to toolgate's (a damaged database says so), steps
 * and execs that wait out SQLITE_BUSY instead of surfacing it, binding and
 * reading columns. All data is bound, never spliced into SQL text.
 */
#include "registry/db/db.h"

#include <string.h>

int reg_sqlerr(tg_registry *r, int rc, const char *what)
{
	int prim = rc & 0xff;
	int code = TG_ERR_INTERNAL;

	if (prim == SQLITE_FULL || prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN ||
	    prim == SQLITE_READONLY || prim == SQLITE_PERM)
		code = TG_ERR_IO;
	else if (prim == SQLITE_NOMEM)
		code = TG_ERR_NOMEM;
	else if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB)
		return tg_error_set(TG_ERR_IO, "registry database: %s: %s (" REG_DAMAGED ")", what,
				    r && r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
	if (code == TG_ERR_IO && r && r->db && sqlite3_system_errno(r->db) > 0)
		/* say why the OS refused: "No space left on device", "Read-only
		 * file system" (SQLite's own text only says "disk I/O error") */
		return tg_error_set(code, "registry database: %s: %s (%s)", what,
				    sqlite3_errmsg(r->db), strerror(sqlite3_system_errno(r->db)));
	return tg_error_set(code, "registry database: %s: %s", what,
			    r && r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
}

int reg_step(sqlite3_stmt *st)
{
	uint64_t start = tg_now_ms();
	int rc;

	for (;;) {
		rc = sqlite3_step(st);
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			return rc;
		if (tg_now_ms() - start > REG_BUSY_RETRY_MS)
			return rc;
		sqlite3_reset(st);
		sqlite3_sleep(5);
	}
}

int reg_exec(tg_registry *r, const char *sql)
{
	uint64_t start = tg_now_ms();
	int rc;

	for (;;) {
		rc = sqlite3_exec(r->db, sql, NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			break;
		if (tg_now_ms() - start > REG_BUSY_RETRY_MS)
			break;
		sqlite3_sleep(5);
	}
	if (rc != SQLITE_OK)
		return reg_sqlerr(r, rc, "exec");
	return 0;
}

int reg_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

char *reg_col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

json_t *reg_col_json(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	json_t *v = NULL;
	tg_json_limits lim = { 16u << 20, 128 };

	if (!t || tg_json_parse(&v, t, strlen(t), &lim) < 0) {
		tg_error_clear();
		return json_null();
	}
	return v;
}

