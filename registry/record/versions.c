/*
 * registry/record/versions.c: version rows. Writing one version with its findings
 * and test results (shared by the create pipeline and the re-index from the
 * store), and reading one back as the JSON that `show` and `history` print.
 */
#include "registry/record/record.h"

#include <string.h>

static int dump_bind(sqlite3_stmt *st, int i, const json_t *v)
{
	char *s = v ? tg_json_dump(v) : strdup("null");
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	sqlite3_bind_text(st, i, s, -1, free);
	return 0;
}

static int insert_findings(tg_registry *r, int64_t vid, const json_t *analysis)
{
	json_t *fs = analysis ? json_object_get(analysis, "findings") : NULL;
	json_t *f;
	size_t i;
	int rc;

	json_array_foreach(fs, i, f) {
		_cleanup_stmt_ sqlite3_stmt *st = NULL;
		const char *stage = json_string_value(json_object_get(f, "stage"));
		rc = reg_prepare(r, &st, "INSERT INTO findings(version_id, stage, rule, severity, "
					 "message, line, col, symbol) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)");
		if (rc < 0)
			return rc;
		sqlite3_bind_int64(st, 1, vid);
		reg_bind_text(st, 2, stage ? stage : "source");
		reg_bind_text(st, 3, json_string_value(json_object_get(f, "rule")) ?: "");
		reg_bind_text(st, 4, json_string_value(json_object_get(f, "severity")) ?: "");
		reg_bind_text(st, 5, json_string_value(json_object_get(f, "message")) ?: "");
		sqlite3_bind_int64(st, 6, json_integer_value(json_object_get(f, "line")));
		sqlite3_bind_int64(st, 7, json_integer_value(json_object_get(f, "column")));
		reg_bind_text(st, 8, json_string_value(json_object_get(f, "symbol")));
		rc = reg_step(st);
		if (rc != SQLITE_DONE)
			return reg_sqlerr(r, rc, "insert finding");
	}
	return 0;
}

static int insert_tests(tg_registry *r, int64_t vid, const json_t *tests)
{
	json_t *t;
	size_t i;
	int rc;

	json_array_foreach(tests, i, t) {
		_cleanup_stmt_ sqlite3_stmt *st = NULL;
		rc = reg_prepare(r, &st, "INSERT INTO test_results(version_id, idx, name, passed, "
					 "detail, wall_ms) VALUES(?1,?2,?3,?4,?5,?6)");
		if (rc < 0)
			return rc;
		sqlite3_bind_int64(st, 1, vid);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		reg_bind_text(st, 3, json_string_value(json_object_get(t, "name")) ?: "");
		sqlite3_bind_int(st, 4, json_is_true(json_object_get(t, "passed")));
		reg_bind_text(st, 5, json_string_value(json_object_get(t, "detail")) ?: "");
		sqlite3_bind_int64(st, 6, json_integer_value(json_object_get(t, "wall_ms")));
		rc = reg_step(st);
		if (rc != SQLITE_DONE)
			return reg_sqlerr(r, rc, "insert test result");
	}
	return 0;
}

static int insert_output_schema(tg_registry *r, int64_t vid, const json_t *schema)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	if (!json_is_object(schema))
		return 0;
	rc = reg_prepare(r, &st, "INSERT OR REPLACE INTO output_schemas(version_id, schema) "
				 "VALUES(?1, ?2)");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, vid);
	if ((rc = dump_bind(st, 2, schema)) < 0)
		return rc;
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "insert output schema");
}

int reg_insert_version(tg_registry *r, int64_t tool_id, const reg_version_rec *v,
		       int *out_inserted)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	const json_t *m = v->manifest;
	json_t *caps = json_object_get(m, "capabilities");
	json_t *limits = json_object_get(m, "limits");
	_cleanup_json_ json_t *empty_arr = json_array(), *empty_obj = json_object();
	int64_t vid;
	int rc;

	*out_inserted = 0;
	rc = reg_prepare(r, &st,
			 "INSERT INTO versions(tool_id, version, status, verdict, reason, commit_id, "
			 "content_hash, submitter, created_at, description, input_schema, "
			 "capabilities, limits, analysis, tests) "
			 "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15) "
			 "ON CONFLICT DO NOTHING");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v->version);
	reg_bind_text(st, 3, v->status);
	reg_bind_text(st, 4, v->verdict);
	reg_bind_text(st, 5, v->reason ? v->reason : "");
	reg_bind_text(st, 6, v->commit);
	reg_bind_text(st, 7, v->content_hash ? v->content_hash : "");
	reg_bind_text(st, 8, v->submitter ? v->submitter : "");
	sqlite3_bind_int64(st, 9, v->time);
	reg_bind_text(st, 10, json_string_value(json_object_get(m, "description")) ?: "");
	if ((rc = dump_bind(st, 11, json_object_get(m, "input_schema") ?: empty_obj)) < 0 ||
	    (rc = dump_bind(st, 12, caps ? caps : empty_arr)) < 0 ||
	    (rc = dump_bind(st, 13, limits ? limits : empty_obj)) < 0 ||
	    (rc = dump_bind(st, 14, v->analysis ? v->analysis : empty_obj)) < 0 ||
	    (rc = dump_bind(st, 15, v->tests ? v->tests : empty_arr)) < 0)
		return rc;
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "insert version");
	if (sqlite3_changes(r->db) == 0)
		return 0;
	vid = sqlite3_last_insert_rowid(r->db);
	*out_inserted = 1;
	if ((rc = insert_output_schema(r, vid, json_object_get(m, "output_schema"))) < 0)
		return rc;
	if ((rc = insert_findings(r, vid, v->analysis)) < 0)
		return rc;
	return insert_tests(r, vid, v->tests);
}

int reg_version_status(tg_registry *r, int64_t tool_id, unsigned v, char **out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT status FROM versions WHERE tool_id = ?1 AND "
				     "version = ?2");
	*out = NULL;
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		*out = reg_col_strdup(st, 0);
	else if (rc == SQLITE_DONE)
		*out = strdup("");
	else
		return reg_sqlerr(r, rc, "read status");
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int reg_max_version(tg_registry *r, int64_t tool_id, unsigned *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT max(version) FROM versions WHERE tool_id = ?1");

	*out = 0;
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		*out = (unsigned)sqlite3_column_int64(st, 0);
	else
		return reg_sqlerr(r, rc, "read versions");
	return 0;
}

int reg_version_json(json_t **out, tg_registry *r, int64_t tool_id, const char *tool,
		     unsigned v, int full)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *o = NULL;
	json_t *analysis, *findings;
	int rc;

	*out = NULL;
	rc = reg_prepare(r, &st, "SELECT version, status, verdict, reason, commit_id, content_hash, "
				 "submitter, created_at, description, input_schema, capabilities, "
				 "limits, analysis, tests, (SELECT o.schema FROM output_schemas o "
				 "WHERE o.version_id = versions.id) FROM versions WHERE "
				 "tool_id = ?1 AND version = ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", tool, v);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read version");
	o = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:I, s:s, s:s}", "name", tool, "version",
		      (json_int_t)sqlite3_column_int64(st, 0), "status",
		      (const char *)sqlite3_column_text(st, 1), "verdict",
		      (const char *)sqlite3_column_text(st, 2), "reason",
		      (const char *)sqlite3_column_text(st, 3), "commit",
		      (const char *)sqlite3_column_text(st, 4), "time",
		      (json_int_t)sqlite3_column_int64(st, 7), "content_hash",
		      (const char *)sqlite3_column_text(st, 5), "submitter",
		      (const char *)sqlite3_column_text(st, 6));
	if (!o)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_object_set_new(o, "capabilities", reg_col_json(st, 10));
	if (full) {
		json_object_set_new(o, "description",
				    json_string((const char *)sqlite3_column_text(st, 8)));
		json_object_set_new(o, "input_schema", reg_col_json(st, 9));
		{
			json_t *os = reg_col_json(st, 14);
			if (json_is_object(os))
				json_object_set_new(o, "output_schema", os);
			else
				json_decref(os);
		}
		json_object_set_new(o, "limits", reg_col_json(st, 11));
		analysis = reg_col_json(st, 12);
		findings = json_object_get(analysis, "findings");
		json_object_set_new(o, "findings", findings ? json_incref(findings) : json_array());
		json_decref(analysis);
		json_object_set_new(o, "tests", reg_col_json(st, 13));
	}
	*out = TG_TAKE_PTR(o);
	return 0;
}

int reg_need_tool(tg_registry *r, const char *name, int64_t *id)
{
	int rc;

	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	rc = reg_tool_id(r, name, 0, id);
	if (rc < 0)
		return rc;
	if (!*id)
		return tg_error_set(TG_ERR_NOTFOUND, "no tool named %s", name);
	return 0;
}

