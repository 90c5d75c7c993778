/*
 * registry/record/overview.c: what `toolgate status` adds to the quota figures so
 * one screen gives the state of a home: how many tools there are and how
 * many have an active version, the versions waiting for a person (count and
 * the first few), the rejections of the last 24 hours (count and the most
 * recent few, with their reasons), the calls of the last 24 hours, and the
 * session budget defaults of config.json that every MCP session starts with.
 */
#include "registry/record/record.h"

#define OVERVIEW_FIRST 5
#define DAY 86400

static int count1(tg_registry *r, const char *sql, int64_t since, json_int_t *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, sql);

	*out = 0;
	if (rc < 0)
		return rc;
	if (since)
		sqlite3_bind_int64(st, 1, since);
	rc = reg_step(st);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "count");
	*out = sqlite3_column_int64(st, 0);
	return 0;
}

/* Rows (name, version, status, reason, time) of sql into an array. */
static int rows(tg_registry *r, const char *sql, int64_t since, json_t *arr)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, sql);

	if (rc < 0)
		return rc;
	if (since)
		sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int(st, 2, OVERVIEW_FIRST);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *o = json_pack("{s:s, s:I, s:s, s:s, s:I}",
				      "name", (const char *)sqlite3_column_text(st, 0),
				      "version", (json_int_t)sqlite3_column_int64(st, 1),
				      "status", (const char *)sqlite3_column_text(st, 2),
				      "reason", (const char *)sqlite3_column_text(st, 3),
				      "time", (json_int_t)sqlite3_column_int64(st, 4));
		if (!o || json_array_append_new(arr, o) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read versions");
	return 0;
}

int reg_status_overview(tg_registry *r, json_t *res)
{
	_cleanup_json_ json_t *pending = json_array(), *rejected = json_array(), *add = NULL;
	_cleanup_json_ json_t *backends = NULL;
	json_int_t tools, active, n_pending, n_rejected, calls;
	int64_t day_ago = tg_time_now() - DAY;
	int rc;

	if (!pending || !rejected)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = count1(r, "SELECT count(*) FROM tools WHERE EXISTS (SELECT 1 FROM versions v "
			    "WHERE v.tool_id = tools.id)", 0, &tools)) < 0 ||
	    (rc = count1(r, "SELECT count(*) FROM tools WHERE active_version > 0", 0, &active)) < 0 ||
	    (rc = count1(r, "SELECT count(*) FROM versions WHERE status = 'pending'", 0,
			 &n_pending)) < 0 ||
	    (rc = count1(r, "SELECT count(*) FROM versions WHERE status IN ('rejected', 'failed') "
			    "AND created_at >= ?1", day_ago, &n_rejected)) < 0 ||
	    (rc = count1(r, "SELECT count(*) FROM calls WHERE at >= ?1", day_ago, &calls)) < 0)
		return rc;
	rc = rows(r, "SELECT t.name, v.version, v.status, v.reason, v.created_at FROM versions v "
		     "JOIN tools t ON t.id = v.tool_id WHERE v.status = 'pending' "
		     "ORDER BY t.name, v.version LIMIT ?2", 0, pending);
	if (rc < 0)
		return rc;
	rc = rows(r, "SELECT t.name, v.version, v.status, v.reason, v.created_at FROM versions v "
		     "JOIN tools t ON t.id = v.tool_id WHERE v.status IN ('rejected', 'failed') AND "
		     "v.created_at >= ?1 ORDER BY v.created_at DESC, v.id DESC LIMIT ?2", day_ago,
		  rejected);
	if (rc < 0)
		return rc;
	add = json_pack("{s:{s:I, s:I}, s:{s:I, s:O}, s:{s:I, s:O}, s:{s:I},"
			" s:{s:I, s:I, s:b}}",
			"tools", "total", tools, "active", active,
			"pending", "count", n_pending, "first", pending,
			"rejections_24h", "count", n_rejected, "recent", rejected,
			"calls_24h", "count", calls,
			"session_defaults", "max_calls", (json_int_t)r->cfg.session_max_calls,
			"max_creates", (json_int_t)r->cfg.session_max_creates, "hide_write_tools",
			r->cfg.session_hide_write_tools);
	if (!add || json_object_update(res, add) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* active tools by the sandbox backend their calls get (backend.c) */
	if ((rc = reg_backend_counts(&backends, r)) < 0)
		return rc;
	return json_object_set_new(res, "backends", TG_TAKE_PTR(backends)) < 0
		       ? tg_error_set(TG_ERR_NOMEM, "out of memory")
		       : 0;
}
