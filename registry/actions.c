/*
 * registry/actions.c: what people do to a registered tool: rollback
 * (re-activate an earlier version that passed) and approve (grant the
 * capabilities a pending version asks for, which activates it).
 */
#include "reg_internal.h"

#include <string.h>

/* The version to roll back to by default: the newest earlier version that
 * was active once and passed; else the newest earlier passing version. */
static int default_target(tg_registry *r, int64_t id, unsigned cur, unsigned *out)
{
	static const char *const q[] = {
		"SELECT v.version FROM versions v WHERE v.tool_id = ?1 AND v.version < ?2 AND "
		"v.status = 'inactive' AND EXISTS (SELECT 1 FROM events e WHERE e.tool_id = "
		"v.tool_id AND e.version = v.version) ORDER BY v.version DESC LIMIT 1",
		"SELECT version FROM versions WHERE tool_id = ?1 AND version < ?2 AND "
		"status = 'inactive' ORDER BY version DESC LIMIT 1",
	};
	size_t i;
	int rc;

	*out = 0;
	for (i = 0; i < TG_ARRAY_SIZE(q) && !*out; i++) {
		_cleanup_stmt_ sqlite3_stmt *st = NULL;
		rc = reg_prepare(r, &st, q[i]);
		if (rc < 0)
			return rc;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, cur);
		rc = reg_step(st);
		if (rc == SQLITE_ROW)
			*out = (unsigned)sqlite3_column_int64(st, 0);
		else if (rc != SQLITE_DONE)
			return reg_sqlerr(r, rc, "find rollback target");
	}
	return 0;
}

int tg_registry_rollback(json_t **out, tg_registry *r, const char *name, unsigned to,
			 const tg_actor *who)
{
	_cleanup_free_ char *status = NULL;
	int64_t id;
	unsigned cur = 0;
	int rc;

	*out = NULL;
	rc = reg_need_tool(r, name, &id);
	if (rc < 0)
		return rc;
	rc = reg_begin(r);
	if (rc < 0)
		return rc;
	rc = reg_active_version(r, id, &cur);
	if (rc < 0)
		goto fail;
	if (to == 0) {
		if (cur == 0) {
			rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no active version; name one with "
							   "--to", name);
			goto fail;
		}
		rc = default_target(r, id, cur, &to);
		if (rc < 0)
			goto fail;
		if (to == 0) {
			rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no earlier version that passed "
							   "(active is v%u)", name, cur);
			goto fail;
		}
	}
	rc = reg_version_status(r, id, to, &status);
	if (rc < 0)
		goto fail;
	if (!status[0]) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", name, to);
		goto fail;
	}
	if (strcmp(status, "active") == 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u is already the active version", name, to);
		goto fail;
	}
	if (strcmp(status, "pending") == 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u awaits approval of its capabilities: use "
						  "'toolgate approve %s@%u'", name, to, name, to);
		goto fail;
	}
	if (strcmp(status, "inactive") != 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u did not pass (%s): only a version that "
						  "passed can be activated", name, to, status);
		goto fail;
	}
	rc = reg_activate(r, id, name, to, "rollback", who);
	if (rc < 0)
		goto fail;
	rc = reg_commit(r);
	if (rc < 0)
		return rc;
	*out = json_pack("{s:s, s:i, s:i, s:s}", "name", name, "version", (int)to,
			 "from_version", (int)cur, "status", "active");
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}

int tg_registry_approve(json_t **out, tg_registry *r, const char *name, unsigned version,
			const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *status = NULL, *actor = reg_actor_string(who);
	_cleanup_json_ json_t *caps = NULL;
	int64_t id;
	unsigned cur = 0;
	int rc;

	*out = NULL;
	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_need_tool(r, name, &id);
	if (rc < 0)
		return rc;
	rc = reg_begin(r);
	if (rc < 0)
		return rc;
	rc = reg_version_status(r, id, version, &status);
	if (rc < 0)
		goto fail;
	if (!status[0]) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", name, version);
		goto fail;
	}
	if (strcmp(status, "pending") != 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u is %s, not pending approval", name, version,
				  status);
		goto fail;
	}
	rc = reg_active_version(r, id, &cur);
	if (rc < 0)
		goto fail;
	rc = reg_prepare(r, &st, "INSERT INTO approvals(version_id, capabilities, actor, at) "
				 "SELECT id, capabilities, ?3, ?4 FROM versions WHERE tool_id = ?1 "
				 "AND version = ?2 RETURNING capabilities");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, version);
	reg_bind_text(st, 3, actor);
	sqlite3_bind_int64(st, 4, tg_time_now());
	rc = reg_step(st);
	if (rc != SQLITE_ROW) {
		rc = reg_sqlerr(r, rc, "record approval");
		goto fail;
	}
	caps = reg_col_json(st, 0);
	rc = reg_step(st);
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record approval");
		goto fail;
	}
	rc = reg_activate(r, id, name, version, "approve", who);
	if (rc < 0)
		goto fail;
	rc = reg_commit(r);
	if (rc < 0)
		return rc;
	*out = json_pack("{s:s, s:i, s:i, s:s, s:O}", "name", name, "version", (int)version,
			 "from_version", (int)cur, "status", "active", "capabilities", caps);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}
