/*
 * registry/call/canary.c: the canary after an activation (docs/REGISTRY.md,
 * "A new version earns its place"). The first REG_CANARY_CALLS (20)
 * recorded calls of a newly active version are watched: when
 * REG_CANARY_FAILURES (3) of them failed while the version it replaced
 * failed none of its recorded calls (and has at least one), the previous
 * version is activated again through review/activate.c (its approval must
 * stand), audited "auto_revert". Checked only after a recorded call that
 * failed, so a successful call pays nothing; it needs recorded calls
 * (config.json record_calls), as shadow runs do.
 */
#include <string.h>
#include "registry/call/call.h"

#define REG_CANARY_CALLS 20
#define REG_CANARY_FAILURES 3

/* The active version's last activation: the version it replaced and when. */
static int last_activation(tg_registry *r, const char *name, int64_t *tool_id, unsigned *v,
			   unsigned *prev, int64_t *at)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT t.id, t.active_version, e.from_version, e.at FROM "
				     "tools t JOIN events e ON e.tool_id = t.id AND e.version = "
				     "t.active_version WHERE t.name = ?1 ORDER BY e.id DESC LIMIT 1");

	*prev = 0;
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read the last activation");
	*tool_id = sqlite3_column_int64(st, 0);
	*v = (unsigned)sqlite3_column_int64(st, 1);
	*prev = (unsigned)sqlite3_column_int64(st, 2);
	*at = sqlite3_column_int64(st, 3);
	return 0;
}

/* Failures among version v's first n recorded calls since at (n = 0: all
 * of them, any time); *count the calls looked at. */
static int failures(tg_registry *r, const char *name, unsigned v, int64_t at, int n,
		    int *count, int *failed)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT count(*), coalesce(sum(ok = 0), 0) FROM (SELECT ok "
				     "FROM call_samples WHERE tool = ?1 AND version = ?2 AND at >= "
				     "?3 ORDER BY id LIMIT ?4)");

	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, v);
	sqlite3_bind_int64(st, 3, at);
	sqlite3_bind_int64(st, 4, n ? n : -1);
	if ((rc = reg_step(st)) != SQLITE_ROW)
		return reg_sqlerr(r, rc, "count failures");
	*count = sqlite3_column_int(st, 0);
	*failed = sqlite3_column_int(st, 1);
	return 0;
}

static int revert(tg_registry *r, int64_t tool_id, const char *name, unsigned prev,
		  const tg_actor *who)
{
	_cleanup_free_ char *status = NULL;
	int rc;

	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = reg_version_status(r, tool_id, prev, &status)) < 0)
		goto fail;
	if (strcmp(status, "inactive") != 0) {
		reg_rollback(r); /* denied or otherwise not to be activated */
		return 0;
	}
	if ((rc = reg_activate(r, tool_id, name, prev, "auto_revert", who)) < 0)
		goto fail;
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

int reg_canary_after_call(tg_registry *r, const char *name, const json_t *res,
			  const tg_actor *who)
{
	int64_t tool_id = 0, at = 0;
	unsigned v = 0, prev = 0;
	int n = 0, f = 0, pn = 0, pf = 0, rc;

	if (json_is_true(json_object_get(res, "ok")))
		return 0;
	if ((rc = last_activation(r, name, &tool_id, &v, &prev, &at)) < 0 || !prev)
		return rc;
	if ((rc = failures(r, name, v, at, REG_CANARY_CALLS, &n, &f)) < 0)
		return rc;
	if (f < REG_CANARY_FAILURES || n > REG_CANARY_CALLS)
		return 0;
	if ((rc = failures(r, name, prev, 0, 0, &pn, &pf)) < 0)
		return rc;
	if (pn == 0 || pf > 0)
		return 0;
	return revert(r, tool_id, name, prev, who);
}
