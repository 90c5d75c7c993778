/*
 * registry/review/actions.c: rollback: re-activate an earlier version that passed,
 * is not denied and whose approval stands (approval.c: it asks for no
 * capability, or a person approved that exact version). An MCP session that
 * hides write tools neither sees nor reaches versions asking for
 * workspace:write. Approve and deny live in approval.c.
 */
#include "registry/review/review.h"

#include <string.h>

static int asks_write(const json_t *caps)
{
	json_t *c;
	size_t i;

	json_array_foreach(caps, i, c) {
		if (json_is_string(c) && strcmp(json_string_value(c), "workspace:write") == 0)
			return 1;
	}
	return 0;
}

/* Can the caller see version v (TG_ROLLBACK_HIDE_WRITE)? */
static int visible(tg_registry *r, int64_t id, unsigned v, unsigned flags, int *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *caps = NULL;
	int rc;

	*out = 1;
	if (!(flags & TG_ROLLBACK_HIDE_WRITE))
		return 0;
	rc = reg_prepare(r, &st, "SELECT capabilities FROM versions WHERE tool_id = ?1 AND "
				 "version = ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		caps = reg_col_json(st, 0);
		*out = !asks_write(caps);
	} else if (rc != SQLITE_DONE) {
		return reg_sqlerr(r, rc, "read version");
	}
	return 0;
}

/* The version to roll back to by default: the newest earlier version that
 * was active once and passed; else the newest earlier passing version;
 * either way one whose approval stands and that the caller may see. */
static int default_target(tg_registry *r, int64_t id, const char *name, unsigned cur,
			  unsigned flags, unsigned *out)
{
	static const char *const q[] = {
		"SELECT v.version FROM versions v WHERE v.tool_id = ?1 AND v.version < ?2 AND "
		"v.status = 'inactive' AND EXISTS (SELECT 1 FROM events e WHERE e.tool_id = "
		"v.tool_id AND e.version = v.version) ORDER BY v.version DESC",
		"SELECT version FROM versions WHERE tool_id = ?1 AND version < ?2 AND "
		"status = 'inactive' ORDER BY version DESC",
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
		while (!*out && (rc = reg_step(st)) == SQLITE_ROW) {
			unsigned v = (unsigned)sqlite3_column_int64(st, 0);
			reg_approval ap;
			int vis;
			if ((rc = visible(r, id, v, flags, &vis)) < 0)
				return rc;
			if (!vis)
				continue;
			if ((rc = reg_approval_check(&ap, r, id, name, v)) < 0)
				return rc;
			if (ap.stands)
				*out = v;
		}
		if (!*out && rc != SQLITE_DONE)
			return reg_sqlerr(r, rc, "find rollback target");
	}
	return 0;
}

int tg_registry_rollback(json_t **out, tg_registry *r, const char *name, unsigned to,
			 unsigned flags, const tg_actor *who)
{
	_cleanup_free_ char *status = NULL;
	reg_approval ap;
	int64_t id;
	unsigned cur = 0;
	int rc, vis = 1;

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
		rc = default_target(r, id, name, cur, flags, &to);
		if (rc < 0)
			goto fail;
		if (to == 0) {
			rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no earlier version that passed "
							   "and is approved (active is v%u)", name, cur);
			goto fail;
		}
	}
	rc = reg_version_status(r, id, to, &status);
	if (rc < 0)
		goto fail;
	if (status[0] && (rc = visible(r, id, to, flags, &vis)) < 0)
		goto fail;
	if (!status[0] || !vis) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u%s", name, to,
				  flags & TG_ROLLBACK_HIDE_WRITE ? " visible to this session" : "");
		goto fail;
	}
	if (strcmp(status, "denied") == 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u was denied by a person: it can never be "
						  "activated", name, to);
		goto fail;
	}
	if (strcmp(status, "active") == 0) {
		/* idempotent (issue 29): the wanted state holds already; nothing
		 * is written, audited or activated */
		reg_rollback(r);
		*out = json_pack("{s:s, s:i, s:i, s:s, s:b}", "name", name, "version", (int)to,
				 "from_version", (int)cur, "status", "active", "already_active", 1);
		return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
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
	rc = reg_approval_check(&ap, r, id, name, to);
	if (rc < 0)
		goto fail;
	if (!ap.stands) {
		rc = tg_error_set(TG_ERR_INVALID, "%s", ap.why);
		goto fail;
	}
	rc = reg_activate(r, id, name, to, "rollback", who);
	if (rc < 0)
		goto fail;
	rc = reg_commit(r);
	if (rc < 0)
		return rc;
	*out = json_pack("{s:s, s:i, s:i, s:s, s:b}", "name", name, "version", (int)to,
			 "from_version", (int)cur, "status", "active", "already_active", 0);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}
