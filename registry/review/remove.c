/*
 * registry/review/remove.c: `toolgate remove NAME` disables a tool: its active
 * pointer is cleared (refs/active/<name> deleted by compare-and-swap, with a
 * reflog message) and no version stays active, while every version, its
 * report and the tool's history are kept. The change is an event ("remove",
 * version 0) that `history` shows and an audit entry; the toolset
 * generation is bumped so MCP clients see the tool go; the version that
 * was active gets a "removed" line in its review note (review_note.c).
 * A later rollback --to V (or the approval of a pending version) brings a
 * version back under the usual checks.
 */
#include "registry/review/review.h"

#include <string.h>

static int clear_active(tg_registry *r, const char *name, unsigned cur, const char *actor)
{
	char msg[240];
	unsigned now = 0;
	tg_store *s;
	int rc, tries;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	snprintf(msg, sizeof(msg), "toolgate remove: %s (was v%u) by %.160s", name, cur, actor);
	reg_line_clean(msg);
	for (tries = 0;; tries++) {
		rc = tg_store_get_active(&now, NULL, s, name);
		if (rc < 0)
			return tg_error_prefix("store");
		if (now == 0)
			return 0;
		rc = tg_store_clear_active(s, name, now, msg);
		if (rc == 0)
			break;
		if (rc != TG_ERR_CONFLICT || tries >= 50)
			return tg_error_prefix("store");
		tg_error_clear();
	}
	if (r->in_txn && !r->undo_pending) {
		/* undo_activation puts refs/active back at undo_to, expecting none */
		r->undo_pending = 1;
		snprintf(r->undo_tool, sizeof(r->undo_tool), "%s", name);
		r->undo_from = 0;
		r->undo_to = now;
	}
	return 0;
}

static int exec_bound(tg_registry *r, const char *sql, int64_t id, const char *what)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, sql);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, what);
	return 0;
}

int tg_registry_remove(json_t **out, tg_registry *r, const char *name, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *actor = reg_actor_string(who);
	_cleanup_json_ json_t *details = NULL;
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
	rc = reg_active_version(r, id, &cur);
	if (rc < 0)
		goto fail;
	if (cur == 0) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no active version: nothing to remove",
				  name);
		goto fail;
	}
	if ((rc = clear_active(r, name, cur, actor)) < 0)
		goto fail;
	rc = exec_bound(r, "UPDATE versions SET status = 'inactive' WHERE tool_id = ?1 AND "
			   "status = 'active'", id, "deactivate");
	if (rc < 0)
		goto fail;
	rc = exec_bound(r, "UPDATE tools SET active_version = 0 WHERE id = ?1", id, "remove");
	if (rc < 0)
		goto fail;
	rc = reg_prepare(r, &st, "INSERT INTO events(tool_id, event, version, from_version, actor, "
				 "at) VALUES(?1, 'remove', 0, ?2, ?3, ?4)");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, cur);
	reg_bind_text(st, 3, actor);
	sqlite3_bind_int64(st, 4, tg_time_now());
	rc = reg_step(st);
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record event");
		goto fail;
	}
	if ((rc = reg_bump_generation(r)) < 0)
		goto fail;
	details = json_pack("{s:i, s:i}", "version", 0, "from_version", (int)cur);
	if (!details) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((rc = reg_audit_append(r, who, "remove", name, details)) < 0 ||
	    (rc = reg_review_note(r, name, cur, "removed", who,
				  ", this version was active and none is now")) < 0 ||
	    (rc = reg_decision_sign(r, name, cur, "remove")) < 0)
		goto fail;
	rc = reg_commit(r);
	if (rc < 0)
		return rc;
	*out = json_pack("{s:s, s:i, s:n}", "name", name, "from_version", (int)cur,
			 "active_version");
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}
