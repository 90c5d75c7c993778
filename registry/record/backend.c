/*
 * registry/record/backend.c: which sandbox backend runs a tool (docs/SANDBOX.md,
 * "Per tool"). The home's default is config.json's sandbox_backend; the
 * operator may put one tool under gVisor whatever the default says, or, with
 * an explicit --weaken, run one tool natively under a gVisor home (an
 * exception). The choice is a row of tool_backends (migration 9): 'gvisor'
 * or 'native' (the exception); no row follows the home. reg_tool_backend()
 * is the one decision every run of a tool asks (exec/run_tool.c); setting a
 * choice is an audited operator action ("backend"). Calls db/ and audit.c.
 * No agent path reaches tg_registry_backend_set: the manifest has no such
 * field and MCP no such tool.
 */
#include "registry/record/record.h"

#include <string.h>

const char *reg_backend_name(int backend)
{
	return backend == TG_SANDBOX_GVISOR ? "gvisor" : "native";
}

/* The tool's row: 1 and *backend when it has one, 0 when it follows the
 * home. */
static int backend_row(tg_registry *r, const char *name, int *backend)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT backend FROM tool_backends WHERE tool = ?1");

	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read tool backend");
	*backend = strcmp((const char *)sqlite3_column_text(st, 0), "gvisor") == 0
			   ? TG_SANDBOX_GVISOR
			   : TG_SANDBOX_NATIVE;
	return 1;
}

int reg_tool_backend(tg_registry *r, const char *name, int *backend, const char **source)
{
	int rc, b = 0;

	*backend = r->cfg.sandbox_backend;
	if (source)
		*source = "home";
	if (!name)
		return 0;
	if ((rc = backend_row(r, name, &b)) <= 0)
		return rc;
	*backend = b;
	if (source)
		*source = b == TG_SANDBOX_GVISOR ? "tool" : "exception";
	return 0;
}

static json_t *backend_json(tg_registry *r, const char *name, int backend, const char *source)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "name", name, "backend", reg_backend_name(backend),
			 "source", source, "home", reg_backend_name(r->cfg.sandbox_backend));
}

static int tool_exists(tg_registry *r, const char *name)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT 1 FROM tools WHERE name = ?1");

	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "no tool named %s", name);
	return rc == SQLITE_ROW ? 0 : reg_sqlerr(r, rc, "find tool");
}

int tg_registry_backend_show(json_t **out, tg_registry *r, const char *name)
{
	const char *source;
	int rc, b;

	*out = NULL;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	if ((rc = tool_exists(r, name)) < 0 || (rc = reg_tool_backend(r, name, &b, &source)) < 0)
		return rc;
	*out = backend_json(r, name, b, source);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* The row the request leaves: 'gvisor', 'native' (an exception) or none
 * (NULL: follow the home). */
static int backend_target(tg_registry *r, const char *name, int want, unsigned flags,
			  const char **row)
{
	*row = NULL;
	if (want == TG_SANDBOX_GVISOR) {
		*row = "gvisor";
	} else if (flags & TG_BACKEND_WEAKEN) {
		*row = "native";
	} else if (r->cfg.sandbox_backend == TG_SANDBOX_GVISOR) {
		return tg_error_set(TG_ERR_INVALID,
				    "the home's default (config.json sandbox_backend) is gvisor: "
				    "running %s natively weakens it; say so with --weaken",
				    name);
	}
	return 0;
}

int tg_registry_backend_set(json_t **out, tg_registry *r, const char *name, int want,
			    unsigned flags, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *d = NULL;
	const char *row, *was_src, *source;
	int rc, was, b;

	*out = NULL;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	if (want != TG_SANDBOX_NATIVE && want != TG_SANDBOX_GVISOR)
		return tg_error_set(TG_ERR_INVALID, "backend: must be native or gvisor");
	if ((rc = backend_target(r, name, want, flags, &row)) < 0)
		return rc;
	if (want == TG_SANDBOX_GVISOR) {
		/* chosen only where it can run: the error names the package */
		char runsc[512];
		if ((rc = tg_sandbox_runsc(runsc, sizeof(runsc))) < 0)
			return rc;
	}
	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = tool_exists(r, name)) < 0 || (rc = reg_tool_backend(r, name, &was, &was_src)) < 0)
		goto fail;
	rc = reg_prepare(r, &st, row ? "INSERT INTO tool_backends(tool, backend, set_at) "
				       "VALUES(?1, ?2, ?3) ON CONFLICT(tool) DO UPDATE SET "
				       "backend = excluded.backend, set_at = excluded.set_at"
				     : "DELETE FROM tool_backends WHERE tool = ?1");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, name);
	if (row) {
		reg_bind_text(st, 2, row);
		sqlite3_bind_int64(st, 3, tg_time_now());
	}
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "set tool backend");
		goto fail;
	}
	if ((rc = reg_tool_backend(r, name, &b, &source)) < 0)
		goto fail;
	d = backend_json(r, name, b, source);
	if (!d || json_object_set_new(d, "was", json_string(reg_backend_name(was))) < 0 ||
	    json_object_set_new(d, "was_source", json_string(was_src)) < 0) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((rc = reg_audit_commit(r, who, "backend", name, d)) < 0)
		return rc;
	*out = TG_TAKE_PTR(d);
	return 0;
fail:
	reg_rollback(r);
	return rc;
}

/* Active tools by the backend their calls get: {"home", "gvisor", "native",
 * "gvisor_by_tool", "native_exceptions"} (status, and doctor through
 * tg_registry_backends). */
int tg_registry_backends(json_t **out, tg_registry *r)
{
	return reg_backend_counts(out, r);
}

int reg_backend_counts(json_t **out, tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int64_t n[3] = { 0, 0, 0 }; /* follows the home, 'native', 'gvisor' */
	int home_gv = r->cfg.sandbox_backend == TG_SANDBOX_GVISOR;
	int rc = reg_prepare(r, &st, "SELECT coalesce(b.backend, ''), count(*) FROM tools t LEFT "
				     "JOIN tool_backends b ON b.tool = t.name WHERE "
				     "t.active_version > 0 GROUP BY 1");

	*out = NULL;
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(st, 0);
		n[!strcmp(b, "native") ? 1 : !strcmp(b, "gvisor") ? 2 : 0] =
			sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "count tool backends");
	*out = json_pack("{s:s, s:I, s:I, s:I, s:I}", "home",
			 reg_backend_name(r->cfg.sandbox_backend), "gvisor",
			 (json_int_t)(n[2] + (home_gv ? n[0] : 0)), "native",
			 (json_int_t)(n[1] + (home_gv ? 0 : n[0])), "gvisor_by_tool", (json_int_t)n[2],
			 "native_exceptions", (json_int_t)n[1]);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}
