/*
 * registry/review/review.c: the read side people review with: list (the active
 * toolset), show (one version with its findings, tests and source), history
 * (every version and every activation event), diff (from the store) and log
 * (the audit log). Shapes are documented in docs/REGISTRY.md.
 */
#include "registry/review/review.h"

#include <string.h>

int tg_registry_list(json_t **out, tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *arr = json_array();
	int rc;

	*out = NULL;
	if (!arr)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, "SELECT t.name, v.version, v.description, v.input_schema, "
				 "v.capabilities, o.schema FROM tools t JOIN versions v ON "
				 "v.tool_id = t.id AND v.version = t.active_version LEFT JOIN "
				 "output_schemas o ON o.version_id = v.id WHERE "
				 "t.active_version > 0 ORDER BY t.name");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *o = json_pack("{s:s, s:I, s:s, s:o, s:o}", "name",
				      (const char *)sqlite3_column_text(st, 0), "version",
				      (json_int_t)sqlite3_column_int64(st, 1), "description",
				      (const char *)sqlite3_column_text(st, 2), "input_schema",
				      reg_col_json(st, 3), "capabilities", reg_col_json(st, 4));
		if (o) {
			/* published as MCP outputSchema (docs/MCP.md) */
			json_t *os = reg_col_json(st, 5);
			if (json_is_object(os))
				json_object_set_new(o, "output_schema", os);
			else
				json_decref(os);
		}
		if (!o || json_array_append_new(arr, o) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list tools");
	*out = TG_TAKE_PTR(arr);
	return 0;
}

int tg_registry_show(json_t **out, tg_registry *r, const char *name, unsigned version)
{
	_cleanup_json_ json_t *o = NULL;
	_cleanup_free_ char *src = NULL;
	tg_store *store;
	size_t len = 0;
	int64_t id;
	int rc;

	*out = NULL;
	rc = reg_need_tool(r, name, &id);
	if (rc < 0)
		return rc;
	if (version == 0) {
		rc = reg_active_version(r, id, &version);
		if (rc < 0)
			return rc;
		if (version == 0 && (rc = reg_max_version(r, id, &version)) < 0)
			return rc;
	}
	rc = reg_version_json(&o, r, id, name, version, 1);
	if (rc < 0)
		return rc;
	if ((rc = reg_store(r, &store)) < 0)
		return rc;
	rc = tg_store_get_file(&src, &len, store, name, version, "tool.c");
	if (rc < 0)
		return tg_error_prefix("store");
	json_object_set_new(o, "source", json_stringn(src, len));
	/* what a run gets, defaults and config.json ceilings applied */
	json_object_set_new(o, "limits_applied",
			    reg_limits_applied(r, json_object_get(o, "limits")));
	{ /* the sandbox backend its runs get (record/backend.c): per tool */
		const char *source;
		int b;
		if ((rc = reg_tool_backend(r, name, &b, &source)) < 0)
			return rc;
		json_object_set_new(o, "backend", json_pack("{s:s, s:s, s:s}", "backend",
							    reg_backend_name(b), "source", source,
							    "home",
							    reg_backend_name(r->cfg.sandbox_backend)));
	}
	{ /* the host folder a workspace capability binds at /workspace (config.json):
	   what approving it grants; null when the home has none */
		json_t *caps = json_object_get(o, "capabilities"), *c;
		size_t i;
		int rd = 0, wr = 0;
		json_array_foreach(caps, i, c) {
			rd |= json_is_string(c) && !strcmp(json_string_value(c), "workspace:read");
			wr |= json_is_string(c) && !strcmp(json_string_value(c), "workspace:write");
		}
		if ((rd || wr) &&
		    json_object_set_new(o, "workspace",
					json_pack("{s:s?, s:s}", "host", r->cfg.workspace, "access",
						  wr ? "read-write" : "read-only")) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	{ /* other hosts' signed decisions not followed here (replica/decisions.c) */
		json_t *claims = NULL;
		if ((rc = reg_claims_json(&claims, r, name, version)) < 0)
			return rc;
		json_object_set_new(o, "claims", claims);
	}
	*out = TG_TAKE_PTR(o);
	return 0;
}

int tg_registry_history(json_t **out, tg_registry *r, const char *name)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *o = NULL, *versions = json_array(), *events = json_array();
	unsigned active = 0;
	int64_t id;
	int rc;

	*out = NULL;
	if (!versions || !events)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_need_tool(r, name, &id);
	if (rc < 0)
		return rc;
	rc = reg_active_version(r, id, &active);
	if (rc < 0)
		return rc;
	rc = reg_prepare(r, &st, "SELECT version FROM versions WHERE tool_id = ?1 ORDER BY version");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *v = NULL;
		int r2 = reg_version_json(&v, r, id, name, (unsigned)sqlite3_column_int64(st, 0), 0);
		if (r2 < 0)
			return r2;
		json_object_del(v, "name");
		{ /* why shadow runs held it, or what they found (create/shadow.c) */
			json_t *sh = NULL;
			if ((r2 = reg_shadow_report(&sh, r, name,
						    (unsigned)sqlite3_column_int64(st, 0))) < 0) {
				json_decref(v);
				return r2;
			}
			if (sh)
				json_object_set_new(v, "shadow", sh);
		}
		json_array_append_new(versions, v);
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read versions");
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "SELECT event, version, from_version, actor, at FROM events "
				 "WHERE tool_id = ?1 ORDER BY id");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *e = json_pack("{s:s, s:I, s:I, s:s, s:I}", "event",
				      (const char *)sqlite3_column_text(st, 0), "version",
				      (json_int_t)sqlite3_column_int64(st, 1), "from_version",
				      (json_int_t)sqlite3_column_int64(st, 2), "actor",
				      (const char *)sqlite3_column_text(st, 3), "time",
				      (json_int_t)sqlite3_column_int64(st, 4));
		if (!e || json_array_append_new(events, e) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read events");
	o = json_pack("{s:s, s:i, s:O, s:O}", "name", name, "active", (int)active, "versions",
		      versions, "events", events);
	if (!o)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	{ /* the tests a person made of recorded calls: every later create runs
	   * them (record/sample_tests.c) */
		json_t *rt = NULL;
		if ((rc = reg_sample_tests_list(&rt, r, name)) < 0)
			return rc;
		if (json_array_size(rt) > 0)
			json_object_set_new(o, "regression_tests", rt);
		else
			json_decref(rt);
	}
	*out = TG_TAKE_PTR(o);
	return 0;
}

int tg_registry_diff(char **out, tg_registry *r, const char *name, unsigned v1, unsigned v2)
{
	_cleanup_free_ char *s1 = NULL, *s2 = NULL;
	tg_store *store;
	int64_t id;
	int rc;

	*out = NULL;
	rc = reg_need_tool(r, name, &id);
	if (rc < 0)
		return rc;
	if ((rc = reg_version_status(r, id, v1, &s1)) < 0 ||
	    (rc = reg_version_status(r, id, v2, &s2)) < 0)
		return rc;
	if (!s1[0])
		return tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", name, v1);
	if (!s2[0])
		return tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", name, v2);
	if ((rc = reg_store(r, &store)) < 0)
		return rc;
	rc = tg_store_diff(out, store, name, v1, v2);
	if (rc < 0)
		return tg_error_prefix("store");
	return 0;
}

/* "client": the MCP client (clientInfo's name and version from initialize,
 * as its session's mcp_session_start recorded them) of each entry whose
 * actor is an MCP session, in one pass over the session starts. Printable
 * ASCII, each part at most 64 bytes; the actor itself is unchanged. */
static int add_clients(tg_registry *r, json_t *arr)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *by = json_object();
	json_t *e;
	size_t i;
	int rc, any = 0;

	json_array_foreach(arr, i, e)
		any |= !strncmp(json_string_value(json_object_get(e, "actor")) ?: "", "mcp:", 4);
	if (!any)
		return 0;
	if (!by)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, "SELECT actor, json_extract(details, '$.client'), "
				 "json_extract(details, '$.client_version') FROM audit WHERE event = "
				 "'mcp_session_start' AND json_valid(details)");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *actor = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *ver = (const char *)sqlite3_column_text(st, 2);
		char c[140];
		size_t k;
		if (!actor || !name || !name[0] || json_object_get(by, actor))
			continue;
		snprintf(c, sizeof(c), "%.64s%s%.64s", name, ver && ver[0] ? " " : "", ver ? ver : "");
		for (k = 0; c[k]; k++)
			if ((unsigned char)c[k] < 0x20 || (unsigned char)c[k] >= 0x7f)
				c[k] = '?';
		if (json_object_set_new(by, actor, json_string(c)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read the session starts");
	json_array_foreach(arr, i, e) {
		json_t *c = json_object_get(by, json_string_value(json_object_get(e, "actor")) ?: "");
		if (c && json_object_set(e, "client", c) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return 0;
}

int tg_registry_log(json_t **out, tg_registry *r, size_t limit)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *arr = json_array();
	int rc;

	*out = NULL;
	if (!arr)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* a "call" entry (a call's intent) whose calls row never got its
	 * outcome is marked "unfinished": its process died while the tool ran */
	rc = reg_prepare(r, &st, "SELECT a.seq, a.at, a.actor, a.event, a.tool, a.details, "
				 "a.hash, c.finished FROM (SELECT * FROM audit ORDER BY seq DESC "
				 "LIMIT ?1) a LEFT JOIN calls c ON a.event = 'call' AND c.id = "
				 "json_extract(a.details, '$.call') ORDER BY a.seq");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *tool = (const char *)sqlite3_column_text(st, 4);
		json_t *e = json_pack("{s:I, s:I, s:s, s:s, s:o, s:o, s:s}", "seq",
				      (json_int_t)sqlite3_column_int64(st, 0), "time",
				      (json_int_t)sqlite3_column_int64(st, 1), "actor",
				      (const char *)sqlite3_column_text(st, 2), "event",
				      (const char *)sqlite3_column_text(st, 3), "tool",
				      tool ? json_string(tool) : json_null(), "details",
				      reg_col_json(st, 5), "hash",
				      (const char *)sqlite3_column_text(st, 6));
		if (e && sqlite3_column_type(st, 7) != SQLITE_NULL && sqlite3_column_int(st, 7) == 0)
			json_object_set_new(e, "unfinished", json_true());
		if (!e || json_array_append_new(arr, e) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read the audit log");
	if ((rc = add_clients(r, arr)) < 0)
		return rc;
	*out = TG_TAKE_PTR(arr);
	return 0;
}
