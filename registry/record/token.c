/*
 * registry/record/token.c: the principals of the MCP HTTP transport. A token is 24
 * random bytes shown once as "tgt_" + 48 hex digits; the registry keeps only
 * its SHA-256, the principal's name, budgets (calls, creates), the fnmatch
 * patterns of the tools it may see and call, and whether it may approve
 * calls. The table is created on first use (IF NOT EXISTS), so homes made
 * before it need no migration. Adding and revoking are audit entries.
 */
#include "registry/record/record.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static int ensure_table(tg_registry *r)
{
	return reg_exec(r, "CREATE TABLE IF NOT EXISTS tokens("
			   " name TEXT PRIMARY KEY,"
			   " hash TEXT NOT NULL UNIQUE,"
			   " created INTEGER NOT NULL,"
			   " max_calls INTEGER NOT NULL,"
			   " max_creates INTEGER NOT NULL,"
			   " tools TEXT,"
			   " may_approve INTEGER NOT NULL) STRICT");
}

int tg_registry_token_add(char out[TG_TOKEN_LEN + 1], tg_registry *r, const tg_token_spec *spec,
			  const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *tools = NULL;
	_cleanup_json_ json_t *d = NULL;
	char hash[65];
	int rc;

	out[0] = '\0';
	if (!tg_name_valid(spec->name))
		return tg_error_set(TG_ERR_INVALID, "token name '%.64s': must match "
						    "^[a-z][a-z0-9_]{0,63}$", spec->name);
	if (spec->tools && !(tools = tg_json_dump(spec->tools)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = tg_random_hex(out + 4, 24);
	if (rc < 0)
		return rc;
	memcpy(out, "tgt_", 4);
	tg_sha256_hex(hash, out, strlen(out));
	if ((rc = ensure_table(r)) < 0 || (rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "INSERT INTO tokens(name, hash, created, max_calls, max_creates, "
				 "tools, may_approve) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, spec->name);
	reg_bind_text(st, 2, hash);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(st, 4, spec->max_calls);
	sqlite3_bind_int64(st, 5, spec->max_creates);
	reg_bind_text(st, 6, tools);
	sqlite3_bind_int(st, 7, spec->may_approve ? 1 : 0);
	rc = reg_step(st);
	if ((rc & 0xff) == SQLITE_CONSTRAINT) {
		rc = tg_error_set(TG_ERR_EXISTS, "token %s already exists (revoke it first)",
				  spec->name);
		goto fail;
	}
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "add token");
		goto fail;
	}
	d = json_pack("{s:s, s:I, s:I, s:O?, s:b}", "principal", spec->name, "max_calls",
		      (json_int_t)spec->max_calls, "max_creates", (json_int_t)spec->max_creates,
		      "tools", spec->tools, "may_approve", spec->may_approve ? 1 : 0);
	rc = d ? reg_audit_append(r, who, "token_add", NULL, d)
	       : tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (rc < 0)
		goto fail;
	rc = reg_commit(r);
	if (rc < 0)
		goto fail_nocommit;
	return 0;
fail:
	reg_rollback(r);
fail_nocommit:
	memset(out, 0, TG_TOKEN_LEN + 1);
	return rc;
}

static json_t *row_json(sqlite3_stmt *st)
{
	json_t *tools = reg_col_json(st, 4);
	json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:o, s:b}", "name",
			      (const char *)sqlite3_column_text(st, 0), "created",
			      (json_int_t)sqlite3_column_int64(st, 1), "max_calls",
			      (json_int_t)sqlite3_column_int64(st, 2), "max_creates",
			      (json_int_t)sqlite3_column_int64(st, 3), "tools",
			      tools ? tools : json_null(), "may_approve",
			      sqlite3_column_int(st, 5) != 0);
	return o;
}

#define TOKEN_COLS "name, created, max_calls, max_creates, tools, may_approve"

int tg_registry_token_list(json_t **out, tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *a = json_array();
	int rc;

	*out = NULL;
	if (!a)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_table_exists(r, "tokens")) <= 0) {
		if (rc == 0)
			*out = TG_TAKE_PTR(a); /* no token was ever added */
		return rc;
	}
	rc = reg_prepare(r, &st, "SELECT " TOKEN_COLS " FROM tokens ORDER BY name");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		if (json_array_append_new(a, row_json(st)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list tokens");
	*out = TG_TAKE_PTR(a);
	return 0;
}

int tg_registry_token_check(json_t **out, tg_registry *r, const char *secret)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	char hash[65];
	int rc;

	*out = NULL;
	if ((rc = ensure_table(r)) < 0)
		return rc;
	tg_sha256_hex(hash, secret, strlen(secret));
	rc = reg_prepare(r, &st, "SELECT " TOKEN_COLS " FROM tokens WHERE hash = ?1");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, hash);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "no such token");
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "check token");
	*out = row_json(st);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int tg_registry_token_revoke(tg_registry *r, const char *name, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *d = NULL;
	int rc;

	if ((rc = ensure_table(r)) < 0 || (rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "DELETE FROM tokens WHERE name = ?1");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, name);
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "revoke token");
		goto fail;
	}
	if (sqlite3_changes(r->db) == 0) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "no token named %.64s", name);
		goto fail;
	}
	d = json_pack("{s:s}", "principal", name);
	return reg_audit_commit(r, who, "token_revoke", NULL, d);
fail:
	reg_rollback(r);
	return rc;
}
