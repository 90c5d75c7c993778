/*
 * registry/review/approval.c: a person's decision on a version that asks
 * for capabilities: approve (bound to the version's recomputed approval
 * hash and exact capability set, approval_check.c), deny for good, and the
 * list of versions waiting for one.
 */
#include "registry/review/review.h"

#include <string.h>

/* Open the write transaction that approving or denying name@version runs
 * in, with the version's current status; rolled back on failure. */
static int begin_on_version(tg_registry *r, const char *name, unsigned version, int64_t *id,
			    char **status)
{
	int rc = reg_need_tool(r, name, id);

	if (rc < 0)
		return rc;
	rc = reg_begin(r);
	if (rc < 0)
		return rc;
	rc = reg_version_status(r, *id, version, status);
	if (rc == 0 && !(*status)[0])
		rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", name, version);
	if (rc < 0)
		reg_rollback(r);
	return rc;
}

int tg_registry_approve(json_t **out, tg_registry *r, const char *name, unsigned version,
			unsigned flags, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *status = NULL, *actor = reg_actor_string(who);
	_cleanup_free_ char *capj = NULL;
	_cleanup_json_ json_t *details = NULL;
	reg_approval ap;
	reg_facts f = { 0 };
	int64_t id;
	unsigned cur = 0;
	int rc, activate = 0;
	const char *now_status;

	*out = NULL;
	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = begin_on_version(r, name, version, &id, &status);
	if (rc < 0)
		return rc;
	if (strcmp(status, "denied") == 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u was denied by a person: it can never be "
						  "approved or activated", name, version);
		goto fail;
	}
	if (strcmp(status, "pending") != 0 && strcmp(status, "active") != 0 &&
	    strcmp(status, "inactive") != 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u is %s, not pending approval", name, version,
				  status);
		goto fail;
	}
	rc = reg_approval_check(&ap, r, id, name, version);
	if (rc < 0)
		goto fail;
	if (ap.mismatch) {
		rc = tg_error_set(TG_ERR_INVALID, "%s", ap.why);
		goto fail;
	}
	if (strcmp(status, "pending") != 0 && (!ap.needs || ap.stands)) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u is %s, not pending approval%s", name,
				  version, status, ap.needs ? " (already approved)" : "");
		goto fail;
	}
	rc = reg_version_facts(&f, r, name, version);
	if (rc < 0)
		goto fail;
	capj = tg_json_dump(f.caps);
	if (!capj) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	rc = reg_prepare(r, &st, "INSERT INTO approvals(version_id, capabilities, actor, at, "
				 "version, approval_hash) SELECT id, ?5, ?3, ?4, ?2, ?6 FROM versions "
				 "WHERE tool_id = ?1 AND version = ?2");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, version);
	reg_bind_text(st, 3, actor);
	sqlite3_bind_int64(st, 4, tg_time_now());
	reg_bind_text(st, 5, capj);
	reg_bind_text(st, 6, f.approval_hash);
	rc = reg_step(st);
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record approval");
		goto fail;
	}
	rc = reg_active_version(r, id, &cur);
	if (rc < 0)
		goto fail;
	/* A newer active version is never replaced without being asked to. */
	activate = cur != version && (cur < version || (flags & TG_APPROVE_ACTIVATE));
	now_status = cur == version || activate ? "active" : "inactive";
	if (!activate && cur != version) {
		reg_finalizep(&st);
		st = NULL;
		rc = reg_prepare(r, &st, "UPDATE versions SET status = 'inactive', reason = ?3 "
					 "WHERE tool_id = ?1 AND version = ?2");
		if (rc < 0)
			goto fail;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, version);
		reg_bind_text(st, 3, "approved; not activated because a newer version is active");
		if ((rc = reg_step(st)) != SQLITE_DONE) {
			rc = reg_sqlerr(r, rc, "update status");
			goto fail;
		}
	}
	details = json_pack("{s:i, s:O, s:s, s:b}", "version", (int)version, "capabilities",
			    f.caps, "approval_hash", f.approval_hash, "activated", activate);
	if (!details) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	rc = reg_audit_append(r, who, "approve_version", name, details);
	if (rc < 0)
		goto fail;
	{
		char d[100];
		snprintf(d, sizeof(d), ", approval hash %.64s", f.approval_hash);
		if ((rc = reg_review_note(r, name, version, "approved", who, d)) < 0 ||
		    (rc = reg_decision_sign(r, name, version, "approve")) < 0)
			goto fail;
	}
	if (activate) {
		rc = reg_activate(r, id, name, version, "approve", who);
		if (rc < 0)
			goto fail;
	}
	rc = reg_commit(r);
	if (rc < 0)
		goto out;
	*out = json_pack("{s:s, s:i, s:i, s:s, s:O, s:s, s:b, s:i}", "name", name, "version",
			 (int)version, "from_version", (int)cur, "status", now_status,
			 "capabilities", f.caps, "approval_hash", f.approval_hash, "activated",
			 activate, "active_version", (int)(activate ? version : cur));
	rc = *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
	goto out;
fail:
	reg_rollback(r);
out:
	json_decref(f.caps);
	return rc;
}

int tg_registry_deny(json_t **out, tg_registry *r, const char *name, unsigned version,
		     const char *reason, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *status = NULL, *actor = reg_actor_string(who), *why = NULL;
	_cleanup_json_ json_t *details = NULL;
	int64_t id;
	int rc;

	*out = NULL;
	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!reason)
		reason = "";
	if (strlen(reason) > 1000)
		return tg_error_set(TG_ERR_LIMIT, "--reason: at most 1000 bytes");
	rc = begin_on_version(r, name, version, &id, &status);
	if (rc < 0)
		return rc;
	if (strcmp(status, "denied") == 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u is already denied", name, version);
		goto fail;
	}
	if (strcmp(status, "active") == 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u is the active version: roll back to "
						  "another version first", name, version);
		goto fail;
	}
	if (asprintf(&why, "denied by %s%s%s", actor, reason[0] ? ": " : "", reason) < 0) {
		why = NULL;
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	rc = reg_prepare(r, &st, "UPDATE versions SET status = 'denied', reason = ?3 WHERE "
				 "tool_id = ?1 AND version = ?2");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, version);
	reg_bind_text(st, 3, why);
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "deny");
		goto fail;
	}
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "INSERT INTO denials(version_id, reason, actor, at) SELECT id, "
				 "?3, ?4, ?5 FROM versions WHERE tool_id = ?1 AND version = ?2");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, version);
	reg_bind_text(st, 3, reason);
	reg_bind_text(st, 4, actor);
	sqlite3_bind_int64(st, 5, tg_time_now());
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record denial");
		goto fail;
	}
	details = json_pack("{s:i, s:s, s:s}", "version", (int)version, "reason", reason,
			    "previous_status", status);
	if (!details) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	rc = reg_audit_append(r, who, "deny", name, details);
	if (rc < 0)
		goto fail;
	{
		/* the reason is the operator's words, cut and cleaned to one line */
		char d[260];
		snprintf(d, sizeof(d), "%s%.200s%s", reason[0] ? ", reason \"" : "", reason,
			 reason[0] ? "\"" : "");
		if ((rc = reg_review_note(r, name, version, "denied", who, d)) < 0 ||
		    (rc = reg_decision_sign(r, name, version, "deny")) < 0)
			goto fail;
	}
	rc = reg_commit(r);
	if (rc < 0)
		return rc;
	*out = json_pack("{s:s, s:i, s:s, s:s}", "name", name, "version", (int)version, "status",
			 "denied", "reason", reason);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}

int tg_registry_pending(json_t **out, tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *list = json_array();
	int rc;

	*out = NULL;
	if (!list)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* pending versions, and active ones that ask for capabilities with no
	 * approval row for that version (homes from before approvals bound to
	 * versions): calls refuse those until a person approves them */
	rc = reg_prepare(r, &st,
			 "SELECT t.name, v.version, v.status, v.capabilities, v.submitter, "
			 "v.created_at, v.reason, v.content_hash, t.active_version FROM versions v "
			 "JOIN tools t ON t.id = v.tool_id WHERE v.status = 'pending' OR "
			 "(v.status = 'active' AND v.capabilities != '[]' AND NOT EXISTS (SELECT 1 "
			 "FROM approvals a WHERE a.version_id = v.id AND a.approval_hash != '')) "
			 "ORDER BY t.name, v.version");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *row = json_pack("{s:s, s:I, s:s, s:o, s:s, s:I, s:s, s:s, s:I}", "name",
					(const char *)sqlite3_column_text(st, 0), "version",
					(json_int_t)sqlite3_column_int64(st, 1), "status",
					(const char *)sqlite3_column_text(st, 2), "capabilities",
					reg_col_json(st, 3), "submitter",
					(const char *)sqlite3_column_text(st, 4), "time",
					(json_int_t)sqlite3_column_int64(st, 5), "reason",
					(const char *)sqlite3_column_text(st, 6), "content_hash",
					(const char *)sqlite3_column_text(st, 7), "active_version",
					(json_int_t)sqlite3_column_int64(st, 8));
		if (!row || json_array_append_new(list, row) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list pending");
	{ /* other hosts' signed decisions not followed here */
		json_t *row, *claims;
		size_t i;
		json_array_foreach(list, i, row) {
			rc = reg_claims_json(&claims, r, json_string_value(json_object_get(row, "name")),
					     (unsigned)json_integer_value(json_object_get(row, "version")));
			if (rc < 0)
				return rc;
			json_object_set_new(row, "claims", claims);
		}
	}
	*out = TG_TAKE_PTR(list);
	return 0;
}
