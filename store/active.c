/*
 * store/active.c: refs/active/<tool>, the pointer to a tool's active
 * version. Setting and clearing are compare-and-swap operations against the
 * commit of the version the caller expects (0 = expect no active ref), done
 * under the ref's lock by libgit2, so two registries cannot both "win" a
 * rollback. Moves are logged in the ref's reflog (core.logAllRefUpdates is
 * "always"), so `git reflog refs/active/<tool>` shows every activation and
 * rollback. Like git, deleting the ref (clear_active) deletes its reflog;
 * clear_active holds the store's flock exclusively so that no toolgate
 * writer can interleave with its check and delete.
 */
#include "store_internal.h"

#include <string.h>

int tg_store_get_active(unsigned *out_version, char out_commit[41], tg_store *s, const char *tool)
{
	char ref[128];
	git_oid oid;
	git_commit *c = NULL;
	int rc;

	*out_version = 0;
	if (out_commit)
		out_commit[0] = '\0';
	if ((rc = st_check_tool(tool)) < 0)
		return rc;
	st_ref_name(ref, sizeof(ref), ST_ACTIVE_PREFIX, tool);
	rc = st_ref_id(&oid, s, ref);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return st_git_fail(rc, "read %s", ref);
	if ((rc = git_commit_lookup(&c, s->repo, &oid)) < 0)
		return st_git_fail(GIT_ERROR, "%s: commit", ref);
	rc = st_commit_version(out_version, c);
	git_commit_free(c);
	if (rc < 0)
		return tg_error_prefix("%s", ref);
	if (out_commit)
		git_oid_tostr(out_commit, 41, &oid);
	return 0;
}

/* The commit id of version v of tool. */
static int version_oid(git_oid *out, tg_store *s, const char *tool, unsigned v)
{
	git_commit *c = NULL;
	int rc;

	if ((rc = st_lookup_version_commit(&c, s, tool, v)) < 0)
		return rc;
	git_oid_cpy(out, git_commit_id(c));
	git_commit_free(c);
	return 0;
}

static int check_message(const char *message)
{
	if (message && st_check_line("reflog message", message, ST_MAX_SUBJECT, 1) < 0)
		return tg_error_last()->code;
	return 0;
}

int tg_store_set_active(tg_store *s, const char *tool, unsigned version, unsigned expected_version,
			const char *message)
{
	char ref[128], logmsg[ST_MAX_SUBJECT + 1];
	git_oid target, expected;
	unsigned attempt;
	uint64_t start = tg_now_ms();
	int rc;

	if ((rc = st_check_tool(tool)) < 0 || (rc = check_message(message)) < 0)
		return rc;
	if ((rc = version_oid(&target, s, tool, version)) < 0)
		return rc;
	if (expected_version) {
		rc = version_oid(&expected, s, tool, expected_version);
		if (rc == TG_ERR_NOTFOUND)
			return tg_error_set(TG_ERR_CONFLICT, "tool %s: expected active version %u does not exist",
					    tool, expected_version);
		if (rc < 0)
			return rc;
	}
	st_ref_name(ref, sizeof(ref), ST_ACTIVE_PREFIX, tool);
	snprintf(logmsg, sizeof(logmsg), "%s",
		 message && *message ? message : "toolgate: set active version");
	for (attempt = 0;; attempt++) {
		rc = st_ref_cas(s, ref, &target, expected_version ? &expected : NULL, logmsg);
		if (rc == 0)
			return 0;
		if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ENOTFOUND) {
			unsigned cur = 0;
			tg_store_get_active(&cur, NULL, s, tool);
			return tg_error_set(TG_ERR_CONFLICT,
					    "tool %s: active version is %u, expected %u; nothing changed", tool,
					    cur, expected_version);
		}
		if (rc != GIT_ELOCKED || !st_may_retry(attempt, start))
			return st_git_fail(rc, "tool %s: update %s", tool, ref);
		if (attempt % 8 == 7)
			st_clear_stale_locks(s);
		st_backoff(attempt);
	}
}

int tg_store_clear_active(tg_store *s, const char *tool, unsigned expected_version, const char *message)
{
	char ref[128];
	git_oid expected;
	unsigned attempt;
	uint64_t start = tg_now_ms();
	int rc;

	if ((rc = st_check_tool(tool)) < 0 || (rc = check_message(message)) < 0)
		return rc;
	st_ref_name(ref, sizeof(ref), ST_ACTIVE_PREFIX, tool);
	if (expected_version) {
		rc = version_oid(&expected, s, tool, expected_version);
		if (rc == TG_ERR_NOTFOUND)
			return tg_error_set(TG_ERR_CONFLICT, "tool %s: expected active version %u does not exist",
					    tool, expected_version);
		if (rc < 0)
			return rc;
	}
	for (attempt = 0;; attempt++) {
		git_reference *r = NULL;
		unsigned cur = 0;
		int conflict = 0;

		/* Exclusive: no toolgate writer can move the ref between the
		 * check below and the delete (libgit2 1.5.1 deletes the reflog
		 * before its own compare, so a lost race there would drop it). */
		if ((rc = st_lock_exclusive(s, start)) < 0)
			return tg_error_prefix("tool %s", tool);
		st_snapshot_drop(s);
		rc = git_reference_lookup(&r, s->repo, ref);
		if (rc == GIT_ENOTFOUND) {
			st_unlock(s);
			if (!expected_version)
				return 0; /* already absent, as expected */
			return tg_error_set(TG_ERR_CONFLICT, "tool %s: no active version, expected %u; nothing changed",
					    tool, expected_version);
		}
		if (rc < 0) {
			st_unlock(s);
			return st_git_fail(rc, "read %s", ref);
		}
		if (!expected_version || git_reference_type(r) != GIT_REFERENCE_DIRECT ||
		    !git_oid_equal(git_reference_target(r), &expected))
			conflict = 1;
		else
			rc = git_reference_delete(r); /* libgit2 compares again under the ref's lock */
		st_unlock(s);
		git_reference_free(r);
		if (!conflict && rc == 0)
			return 0;
		if (conflict || rc == GIT_EMODIFIED) {
			tg_store_get_active(&cur, NULL, s, tool);
			return tg_error_set(TG_ERR_CONFLICT,
					    "tool %s: active version is %u, expected %u; nothing changed", tool,
					    cur, expected_version);
		}
		if (rc != GIT_ELOCKED || !st_may_retry(attempt, start))
			return st_git_fail(rc, "tool %s: delete %s", tool, ref);
		if (attempt % 8 == 7)
			st_clear_stale_locks(s);
		st_backoff(attempt);
	}
}

/* Undo a put whose caller failed afterwards: refs/tools/<tool> goes back
 * from the commit of version (which must still be its tip, and not active)
 * to that commit's parent, or is deleted for version 1. */
int tg_store_drop_version(tg_store *s, const char *tool, unsigned version, const char *commit,
			  const char *message)
{
	char ref[128], logmsg[ST_MAX_SUBJECT + 1];
	git_commit *c = NULL;
	git_oid tip, parent;
	unsigned active = 0, attempt;
	uint64_t start = tg_now_ms();
	int rc;

	if ((rc = st_check_tool(tool)) < 0 || (rc = check_message(message)) < 0)
		return rc;
	if ((rc = version_oid(&tip, s, tool, version)) < 0)
		return rc;
	if (!commit || strcmp(git_oid_tostr_s(&tip), commit) != 0)
		return tg_error_set(TG_ERR_CONFLICT, "tool %s: v%u is not commit %.40s", tool, version,
				    commit ? commit : "(none)");
	if ((rc = tg_store_get_active(&active, NULL, s, tool)) < 0)
		return rc;
	if (active == version)
		return tg_error_set(TG_ERR_CONFLICT, "tool %s: v%u is active; not dropped", tool, version);
	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, tool);
	snprintf(logmsg, sizeof(logmsg), "%s", message && *message ? message : "toolgate: drop version");
	if (version > 1) {
		if ((rc = git_commit_lookup(&c, s->repo, &tip)) < 0)
			return st_git_fail(rc, "tool %s: read v%u", tool, version);
		git_oid_cpy(&parent, git_commit_parent_id(c, 0));
		git_commit_free(c);
	}
	for (attempt = 0;; attempt++) {
		if (version > 1) {
			rc = st_ref_cas(s, ref, &parent, &tip, logmsg);
		} else {
			/* deleting: exclusive, as in tg_store_clear_active */
			git_reference *r = NULL;
			if ((rc = st_lock_exclusive(s, start)) < 0)
				return tg_error_prefix("tool %s", tool);
			st_snapshot_drop(s);
			rc = git_reference_lookup(&r, s->repo, ref);
			if (rc == 0 && (git_reference_type(r) != GIT_REFERENCE_DIRECT ||
					!git_oid_equal(git_reference_target(r), &tip)))
				rc = GIT_EMODIFIED;
			else if (rc == 0)
				rc = git_reference_delete(r);
			st_unlock(s);
			git_reference_free(r);
		}
		if (rc == 0)
			return 0;
		if (rc == GIT_EMODIFIED || rc == GIT_ENOTFOUND)
			return tg_error_set(TG_ERR_CONFLICT, "tool %s: v%u is no longer the tip; not dropped",
					    tool, version);
		if (rc != GIT_ELOCKED || !st_may_retry(attempt, start))
			return st_git_fail(rc, "tool %s: drop v%u", tool, version);
		st_backoff(attempt);
	}
}
