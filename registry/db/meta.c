/*
 * registry/db/meta.c: the meta table (key, value) of registry.db, the
 * toolset generation, the tools table's ids by name and whether a table
 * exists.
 */
#include "registry/db/db.h"

int reg_meta_get_int(tg_registry *r, const char *key, int64_t *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT value FROM meta WHERE key = ?1");

	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		return 1;
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read meta");
	*out = 0;
	return 0;
}

int reg_meta_set_int(tg_registry *r, const char *key, int64_t v)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "INSERT INTO meta(key, value) VALUES(?1, ?2) "
				     "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "write meta");
	return 0;
}

int reg_meta_get_text(tg_registry *r, const char *key, char **out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT value FROM meta WHERE key = ?1");

	*out = NULL;
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		*out = reg_col_strdup(st, 0);
		return *out ? 1 : 0;
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read meta");
	return 0;
}

int reg_meta_set_text(tg_registry *r, const char *key, const char *v)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "INSERT INTO meta(key, value) VALUES(?1, ?2) "
				     "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	reg_bind_text(st, 2, v);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "write meta");
	return 0;
}

int reg_bump_generation(tg_registry *r)
{
	return reg_exec(r, "UPDATE meta SET value = value + 1 WHERE key = 'generation'");
}

int reg_tool_id(tg_registry *r, const char *name, int create, int64_t *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT id FROM tools WHERE name = ?1");

	*out = 0;
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		return 0;
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "find tool");
	if (!create)
		return 0;
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "INSERT INTO tools(name, created_at) VALUES(?1, ?2)");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, tg_time_now());
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "add tool");
	*out = sqlite3_last_insert_rowid(r->db);
	return 0;
}


int reg_table_exists(tg_registry *r, const char *name)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND "
				     "name = ?1");

	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read the schema");
	return 0;
}
