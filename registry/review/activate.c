/*
 * registry/review/activate.c: the one place that moves a tool's active pointer.
 *
 * Called inside a BEGIN IMMEDIATE transaction, so activations of cooperating
 * processes are serialized; the store's refs/active/<tool> is moved first by
 * compare-and-swap against what the store holds now (the source of truth),
 * then the rows follow in the same transaction: the previous active version
 * becomes inactive, an event is recorded for `history`, the toolset
 * generation is bumped and an audit entry appended. A version that asks for
 * capabilities is activated only while a person's approval of that exact
 * version stands (approval.c); having been active once approves nothing
 * else. The re-index alone activates without the check: it follows the
 * store's refs/active, and calls still refuse an unapproved version. Every
 * other activation is also a line in the version's review note and names
 * its actor in the reflog of refs/active/<tool> (review_note.c).
 */
#include "registry/review/review.h"

#include <string.h>

int reg_active_version(tg_registry *r, int64_t tool_id, unsigned *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT active_version FROM tools WHERE id = ?1");

	*out = 0;
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		*out = (unsigned)sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read active version");
	return 0;
}

static int set_status(tg_registry *r, int64_t tool_id, unsigned v, const char *status)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "UPDATE versions SET status = ?3 WHERE tool_id = ?1 AND "
				     "version = ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v);
	sqlite3_bind_text(st, 3, status, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "update status");
	if (sqlite3_changes(r->db) != 1)
		return tg_error_set(TG_ERR_INTERNAL, "version %u is not in the registry", v);
	return 0;
}

int reg_activate(tg_registry *r, int64_t tool_id, const char *tool, unsigned v,
		 const char *event, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *actor = reg_actor_string(who);
	_cleanup_json_ json_t *details = NULL;
	char msg[240], what[40], detail[80];
	unsigned cur = 0, prev_sql = 0;
	tg_store *s;
	int rc, tries;

	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (strcmp(event, "reindex") != 0) {
		reg_approval ap;
		rc = reg_approval_check(&ap, r, tool_id, tool, v);
		if (rc < 0)
			return rc;
		if (!ap.stands)
			return tg_error_set(TG_ERR_INVALID, "%s", ap.why);
	}
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = reg_active_version(r, tool_id, &prev_sql);
	if (rc < 0)
		return rc;
	/* the reflog of refs/active/<tool> says who */
	snprintf(msg, sizeof(msg), "toolgate %s: %s v%u by %.160s", event, tool, v, actor);
	reg_line_clean(msg);
	for (tries = 0;; tries++) {
		rc = tg_store_get_active(&cur, NULL, s, tool);
		if (rc < 0)
			return tg_error_prefix("store");
		if (cur == v)
			break;
		rc = tg_store_set_active(s, tool, v, cur, msg);
		if (rc == 0) {
			if (r->in_txn && !r->undo_pending) {
				r->undo_pending = 1;
				snprintf(r->undo_tool, sizeof(r->undo_tool), "%s", tool);
				r->undo_from = v;
				r->undo_to = cur;
			}
			break;
		}
		if (rc != TG_ERR_CONFLICT || tries >= 50)
			return tg_error_prefix("store");
		tg_error_clear();
	}
	if (cur == v || !cur)
		cur = prev_sql; /* the version this activation replaces */
	rc = reg_prepare(r, &st, "UPDATE versions SET status = 'inactive' WHERE tool_id = ?1 AND "
				 "status = 'active' AND version != ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "deactivate");
	if ((rc = set_status(r, tool_id, v, "active")) < 0)
		return rc;
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "UPDATE tools SET active_version = ?2 WHERE id = ?1");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "activate");
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "INSERT INTO events(tool_id, event, version, from_version, actor, "
				 "at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_text(st, 2, event, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, v);
	sqlite3_bind_int64(st, 4, cur);
	reg_bind_text(st, 5, actor);
	sqlite3_bind_int64(st, 6, tg_time_now());
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "record event");
	if ((rc = reg_bump_generation(r)) < 0)
		return rc;
	details = json_pack("{s:i, s:i}", "version", (int)v, "from_version", (int)cur);
	if (!details)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_audit_append(r, who, event, tool, details)) < 0)
		return rc;
	if (strcmp(event, "reindex") == 0)
		return 0; /* the registry following the store: nobody acted */
	if (strcmp(event, "rollback") == 0) {
		snprintf(what, sizeof(what), "rolled back to v%u", v);
		snprintf(detail, sizeof(detail), ", from v%u", cur);
	} else {
		/* the pipeline's "activate" is a create that passed */
		if (strcmp(event, "activate") == 0)
			event = "create";
		snprintf(what, sizeof(what), "activated");
		if (cur)
			snprintf(detail, sizeof(detail), " (%s), replacing v%u", event, cur);
		else
			snprintf(detail, sizeof(detail), " (%s), no version was active", event);
	}
	return reg_review_note(r, tool, v, what, who, detail);
}

/* Move refs/active back after a failed transaction (compare-and-swap: if
 * another process moved it meanwhile, leave it). The caller's error stays.
 * Called through the handle's rollback hook (registry.c). */
void reg_activation_undo(tg_registry *r)
{
	tg_error saved = *tg_error_last();
	char msg[160];
	tg_store *s;

	if (!r->undo_pending)
		return;
	r->undo_pending = 0;
	if (reg_store(r, &s) == 0) {
		snprintf(msg, sizeof(msg), "toolgate undo: v%u (the registry write failed)",
			 r->undo_to);
		if (r->undo_to)
			tg_store_set_active(s, r->undo_tool, r->undo_to, r->undo_from, msg);
		else
			tg_store_clear_active(s, r->undo_tool, r->undo_from, msg);
	}
	tg_error_set(saved.code, "%s", saved.message);
}
