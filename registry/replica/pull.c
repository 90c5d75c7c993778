/*
 * registry/replica/pull.c: `toolgate pull` (docs/STORE.md, "Replication with
 * vetting"). What a remote says is a claim. The store fetches into a private
 * namespace under caps (store/sync.c); then every version new here is
 * re-vetted, re-built and its tests re-run here (reg_revet, the create
 * pipeline's steps on the stored tool.json and tool.c), and this host's
 * verdict is written as a local note on the commit before the history moves
 * into refs/tools/ (so a re-index, here or by a concurrent process, indexes
 * the local verdict, never the trailers). A claim that disagrees is in the
 * answer and in the audit log (pull_disagreement). When both sides added
 * versions, this host's unpushed ones are copied on top of the remote's,
 * renumbered and re-verified; an approval given here moves with its version
 * only when the renumbered version has the very approval hash (tool.json
 * and tool.c) and capability set that were approved (audited
 * approval_carried / approval_not_carried). Each new version's signature
 * (a claim of the host that vetted it, keys.c) is checked and recorded
 * with the local verdict; a bad one is a disagreement; with --trust-signed
 * a good one whose signed claim says the version passed, for the tool.c it
 * holds, spares re-running its tests (never the vetting, hashing and
 * build). A remote active pointer is followed only to a version that
 * passed here and whose approval stands here. Approvals travel only as
 * signed decisions of trusted approvers (decisions.c), applied through the
 * same approval code as a person's here.
 */
#include "registry/replica/replica.h"

#include <string.h>

static const char *relation_name(int rel)
{
	switch (rel) {
	case TG_STORE_IN_SAME: return "same";
	case TG_STORE_IN_NEW: return "new";
	case TG_STORE_IN_AHEAD: return "ahead";
	case TG_STORE_IN_BEHIND: return "behind";
	case TG_STORE_IN_DIVERGED: return "diverged";
	default: return "refused";
	}
}

static int passed(const char *status, const char *verdict)
{
	if (!status || !verdict || strcmp(verdict, "pass") != 0)
		return 0;
	return !strcmp(status, "active") || !strcmp(status, "inactive") || !strcmp(status, "pending");
}

/* Re-vet version v of the chain tip and write the local note. Appends
 * {"version","commit","status","verdict","reason","claimed_status",
 * "claimed_verdict","claimed_content_hash","signature","disagree",
 * "tests_skipped","tests_run"} to versions. */
static int revet_one(tg_registry *r, const char *tool, const char *tip, unsigned v,
		     const char *url, unsigned flags, json_t *versions, unsigned *ndisagree)
{
	_cleanup_free_ char *mj = NULL, *src = NULL, *note = NULL;
	_cleanup_json_ json_t *manifest = NULL, *local = NULL, *sig = NULL;
	tg_json_limits lim = { 4u << 20, 64 };
	tg_store_version *sv = NULL;
	json_t *entry;
	const char *cs, *cv, *ch, *ls, *lv, *lh, *skip = NULL;
	char skip_why[200] = "", hash[65];
	size_t mlen = 0, slen = 0;
	tg_store *s;
	int rc, disagree;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if ((rc = tg_store_version_at(&sv, s, tool, tip, v)) < 0)
		return tg_error_prefix("store");
	cs = tg_store_version_trailer(sv, "Toolgate-Status");
	cv = tg_store_version_trailer(sv, "Toolgate-Verdict");
	ch = tg_store_version_trailer(sv, "Toolgate-Content-Hash");
	/* the signer's claim: checked and recorded, never a substitute for
	 * vetting and building here; a signature that does not verify
	 * disagrees */
	if ((rc = reg_signature_json(&sig, r, sv->commit)) < 0)
		goto out;
	if (tg_store_get_file_at(&mj, &mlen, s, sv->commit, "tool.json") < 0 ||
	    tg_store_get_file_at(&src, &slen, s, sv->commit, "tool.c") < 0 ||
	    tg_json_parse(&manifest, mj, mlen, &lim) < 0 || !json_is_object(manifest)) {
		json_decref(manifest);
		manifest = NULL;
		local = json_pack("{s:s, s:s, s:s, s:s, s:[], s:[]}", "status", "rejected", "verdict",
				  "reject", "reason", "tool.json or tool.c unreadable", "content_hash",
				  "", "findings", "tests");
		tg_error_clear();
	} else {
		/* --trust-signed: the tests of a version signed by a trusted key
		 * whose signed claim says it passed, for exactly this tool.c,
		 * are taken on the signer's word (still vetted and built here) */
		reg_content_hash(hash, src, slen);
		if ((flags & TG_PULL_TRUST_SIGNED) &&
		    !strcmp(json_string_value(json_object_get(sig, "state")), "good") &&
		    passed(cs, cv) && ch && !strcmp(ch, hash)) {
			snprintf(skip_why, sizeof(skip_why), "signed by %.120s",
				 json_string_value(json_object_get(sig, "principal")));
			skip = skip_why;
		}
		/* re-tests: a remote chose this code and its tests' arguments */
		tg_authority prev = reg_authority_set(r, TG_AUTHORITY_RETEST, 0);
		rc = reg_revet(&local, r, manifest, src, slen, skip);
		reg_authority_set(r, prev, 0);
		if (rc < 0)
			goto out;
	}
	if (!local) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	ls = json_string_value(json_object_get(local, "status"));
	lv = json_string_value(json_object_get(local, "verdict"));
	lh = json_string_value(json_object_get(local, "content_hash"));
	disagree = passed(cs, cv) != passed(ls, lv) || !ch || strcmp(ch, lh) != 0;
	if (!strcmp(json_string_value(json_object_get(sig, "state")), "bad"))
		disagree = 1;
	json_object_set(local, "signature", sig);
	if (skip && (!strcmp(ls, "inactive") || !strcmp(ls, "pending")))
		json_object_set_new(local, "tests_skipped", json_string(skip));
	json_object_set_new(local, "claimed", json_pack("{s:s?, s:s?, s:s?}", "status", cs, "verdict",
							cv, "content_hash", ch));
	json_object_set_new(local, "pulled_from", json_string(url));
	json_object_set_new(local, "at", json_integer(tg_time_now()));
	note = tg_json_dump(local);
	if (!note) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = tg_store_note_set(s, sv->commit, note)) < 0) {
		rc = tg_error_prefix("store");
		goto out;
	}
	*ndisagree += disagree;
	entry = json_pack("{s:i, s:s, s:s, s:s, s:O, s:s?, s:s?, s:s?, s:O, s:b, s:I}", "version",
			  (int)v, "commit", sv->commit, "status", ls, "verdict", lv, "reason",
			  json_object_get(local, "reason"), "claimed_status", cs, "claimed_verdict", cv,
			  "claimed_content_hash", ch, "signature", sig, "disagree", disagree, "tests_run",
			  (json_int_t)json_array_size(json_object_get(local, "tests")));
	if (!entry || json_array_append_new(versions, entry) < 0) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (json_object_get(local, "tests_skipped"))
		json_object_set(entry, "tests_skipped", json_object_get(local, "tests_skipped"));
	rc = 0;
out:
	tg_store_version_free(sv);
	return rc;
}

/* Drop the registry's rows of tool above version base (their commits were
 * renumbered by a rebase); the re-index adds them back from the store. */
static int forget_above(tg_registry *r, const char *tool, unsigned base)
{
	static const char *const sql[] = {
		"DELETE FROM approvals WHERE version_id IN (SELECT id FROM versions WHERE tool_id = ?1 "
		"AND version > ?2)",
		"DELETE FROM denials WHERE version_id IN (SELECT id FROM versions WHERE tool_id = ?1 "
		"AND version > ?2)",
		"DELETE FROM versions WHERE tool_id = ?1 AND version > ?2",
		"UPDATE tools SET active_version = 0 WHERE id = ?1 AND active_version > ?2",
	};
	int64_t tool_id = 0;
	size_t i;
	int rc;

	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = reg_tool_id(r, tool, 0, &tool_id)) < 0)
		goto fail;
	for (i = 0; tool_id && i < TG_ARRAY_SIZE(sql); i++) {
		_cleanup_stmt_ sqlite3_stmt *st = NULL;
		if ((rc = reg_prepare(r, &st, sql[i])) < 0)
			goto fail;
		sqlite3_bind_int64(st, 1, tool_id);
		sqlite3_bind_int64(st, 2, base);
		if ((rc = reg_step(st)) != SQLITE_DONE) {
			rc = reg_sqlerr(r, rc, "forget renumbered versions");
			goto fail;
		}
	}
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

/* The approvals of this host's versions above base, read before a rebase
 * renumbers them (v becomes v + shift) and forget_above drops them: one
 * {"i","tool","from","to","capabilities","approval_hash","actor","at"}
 * per approval row, appended to carry (i: the tool's index in the answer). */
static int approvals_above(tg_registry *r, size_t i, const char *tool, unsigned base,
			   unsigned shift, json_t *carry)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT v.version, a.capabilities, a.approval_hash, a.actor, a.at "
				     "FROM approvals a JOIN versions v ON v.id = a.version_id JOIN tools t "
				     "ON t.id = v.tool_id WHERE t.name = ?1 AND v.version > ?2 AND "
				     "a.version = v.version AND a.approval_hash != '' ORDER BY a.id");

	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, tool);
	sqlite3_bind_int64(st, 2, base);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		unsigned from = (unsigned)sqlite3_column_int64(st, 0);
		json_t *e = json_pack("{s:I, s:s, s:i, s:i, s:o, s:s, s:s, s:I}", "i", (json_int_t)i,
				      "tool", tool, "from", (int)from, "to", (int)(from + shift),
				      "capabilities", reg_col_json(st, 1), "approval_hash",
				      (const char *)sqlite3_column_text(st, 2), "actor",
				      (const char *)sqlite3_column_text(st, 3), "at",
				      (json_int_t)sqlite3_column_int64(st, 4));
		if (!e || json_array_append_new(carry, e) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "read approvals");
}

/* One approval of a renumbered version, after the re-index: it moves to the
 * new number only when the version there has the approval hash (tool.json
 * and tool.c, recomputed from the store) and the capability set the person
 * approved; never otherwise. Audited either way. */
static int carry_one(tg_registry *r, const json_t *e, const tg_actor *who, json_t *tool_answer)
{
	static const char *const sql[] = {
		"INSERT INTO approvals(version_id, capabilities, actor, at, version, approval_hash) "
		"SELECT id, ?3, ?4, ?5, ?2, ?6 FROM versions WHERE tool_id = ?1 AND version = ?2",
		"UPDATE versions SET status = 'inactive', reason = ?7 WHERE tool_id = ?1 AND "
		"version = ?2 AND status = 'pending'",
	};
	const char *tool = json_string_value(json_object_get(e, "tool"));
	const char *hash = json_string_value(json_object_get(e, "approval_hash"));
	unsigned from = (unsigned)json_integer_value(json_object_get(e, "from"));
	unsigned to = (unsigned)json_integer_value(json_object_get(e, "to"));
	_cleanup_json_ json_t *caps = reg_caps_norm(json_object_get(e, "capabilities"));
	_cleanup_json_ json_t *d = NULL;
	_cleanup_free_ char *capj = NULL;
	char note[160], why[300] = "";
	reg_facts f = { 0 };
	int64_t tool_id = 0;
	size_t i;
	int rc, ok;

	if (!caps || !(capj = tg_json_dump(caps)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (reg_version_facts(&f, r, tool, to) < 0) {
		snprintf(why, sizeof(why), "v%u unreadable: %.200s", to, tg_error_last()->message);
		tg_error_clear();
	} else if (strcmp(f.approval_hash, hash) != 0) {
		snprintf(why, sizeof(why), "v%u is not the approved code (approval hash %.12s, approved "
			 "%.12s)", to, f.approval_hash, hash);
	} else if (!json_equal(f.caps, caps)) {
		snprintf(why, sizeof(why), "v%u asks for other capabilities than were approved", to);
	}
	json_decref(f.caps);
	ok = !why[0];
	if (ok)
		snprintf(note, sizeof(note), "approval carried from v%u to v%u", from, to);
	else
		snprintf(note, sizeof(note), "approval of v%u not carried to v%u", from, to);
	d = json_pack("{s:s, s:i, s:i, s:s, s:O, s:s}", "note", note, "from", (int)from, "to",
		      (int)to, "approval_hash", hash, "capabilities", caps, "why", why);
	if (!d)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = reg_tool_id(r, tool, 0, &tool_id)) < 0)
		goto fail;
	for (i = 0; ok && tool_id && i < TG_ARRAY_SIZE(sql); i++) {
		_cleanup_stmt_ sqlite3_stmt *st = NULL;
		if ((rc = reg_prepare(r, &st, sql[i])) < 0)
			goto fail;
		sqlite3_bind_int64(st, 1, tool_id);
		sqlite3_bind_int64(st, 2, to);
		if (i == 0) {
			reg_bind_text(st, 3, capj);
			reg_bind_text(st, 4, json_string_value(json_object_get(e, "actor")));
			sqlite3_bind_int64(st, 5, json_integer_value(json_object_get(e, "at")));
			reg_bind_text(st, 6, hash);
		} else {
			char reason[120];
			snprintf(reason, sizeof(reason), "approved (the approval of v%u, carried by a pull "
				 "that renumbered it)", from);
			reg_bind_text(st, 7, reason);
		}
		if ((rc = reg_step(st)) != SQLITE_DONE) {
			rc = reg_sqlerr(r, rc, "carry an approval");
			goto fail;
		}
	}
	if ((rc = reg_audit_append(r, who, ok ? "approval_carried" : "approval_not_carried", tool,
				   d)) < 0)
		goto fail;
	if ((rc = reg_commit(r)) < 0)
		return rc;
	json_array_append(json_object_get(tool_answer, ok ? "approvals_carried" : "approvals_not_carried"),
			  d);
	return 0;
fail:
	reg_rollback(r);
	return rc;
}

/* Both sides added versions: re-vet the remote's, copy ours on top,
 * re-verify them, move refs/tools (and our active pointer, if it was one of
 * ours) by compare-and-swap. */
static int reconcile(tg_registry *r, size_t ti, const tg_store_incoming *in, const char *url,
		     unsigned flags, json_t *versions, json_t *renumbered, json_t *carry,
		     unsigned *ndis)
{
	char newtip[41], msg[200], act[41] = "";
	unsigned v, act_v = 0, k;
	tg_store *s;
	int rc;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	for (v = in->base_version + 1; v <= in->remote_version; v++)
		if ((rc = revet_one(r, in->tool, in->remote_tip, v, url, flags, versions, ndis)) < 0)
			return rc;
	if ((rc = tg_store_rebase(newtip, s, in->tool, in->remote_tip, in->local_tip,
				  in->base_version)) < 0)
		return tg_error_prefix("store");
	for (k = 1; k <= in->local_version - in->base_version; k++) {
		if ((rc = revet_one(r, in->tool, newtip, in->remote_version + k, "(this host, renumbered)",
				    flags, versions, ndis)) < 0)
			return rc;
		json_array_append_new(renumbered, json_pack("{s:i, s:i}", "from", (int)(in->base_version + k),
							    "to", (int)(in->remote_version + k)));
	}
	if (tg_store_get_active(&act_v, act, s, in->tool) < 0)
		return tg_error_prefix("store");
	snprintf(msg, sizeof(msg), "toolgate: pull from %.120s (rebased %u local versions)", url,
		 in->local_version - in->base_version);
	if ((rc = tg_store_adopt(s, in->tool, newtip, in->local_tip, msg)) < 0)
		return rc;
	if (act_v > in->base_version) {
		tg_store_version *nv = NULL;
		if ((rc = tg_store_version_at(&nv, s, in->tool, newtip,
					      in->remote_version + act_v - in->base_version)) < 0)
			return tg_error_prefix("store");
		rc = tg_store_adopt_active(s, in->tool, nv->commit, act, msg);
		tg_store_version_free(nv);
		if (rc < 0)
			return rc;
	}
	if ((rc = approvals_above(r, ti, in->tool, in->base_version,
				  in->remote_version - in->base_version, carry)) < 0)
		return rc;
	return forget_above(r, in->tool, in->base_version);
}

/* Does this host's note on commit record a bad signature? (Checked on
 * every pull, not only the one that brought the commit.) */
static int bad_signature(tg_store *s, const char *commit)
{
	_cleanup_free_ char *note = NULL;
	_cleanup_json_ json_t *j = NULL;
	tg_json_limits lim = { 4u << 20, 64 };
	const char *st;

	if (tg_store_note_get(&note, s, commit) < 0 || !note ||
	    tg_json_parse(&j, note, strlen(note), &lim) < 0) {
		tg_error_clear();
		return 0;
	}
	st = json_string_value(json_object_get(json_object_get(j, "signature"), "state"));
	return st && !strcmp(st, "bad");
}

/* Follow the remote's active pointer when it is acceptable here (never to
 * a version whose signature does not verify). */
static int follow(tg_registry *r, const tg_store_incoming *in, const tg_actor *who, json_t *res)
{
	_cleanup_free_ char *status = NULL;
	tg_store_version *sv = NULL;
	unsigned va = in->remote_active_version, cur = 0;
	char why[600] = "", act[41] = "", by[128];
	int64_t tool_id = 0;
	reg_approval ap;
	tg_store *s;
	int rc, ok = 0, removed = 0;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	/* already there (the store's pointer and the registry's): nothing to
	 * write, no transaction (a pull where nothing changed stays cheap) */
	if (tg_store_get_active(&cur, act, s, in->tool) == 0 && !strcmp(act, in->remote_active) &&
	    reg_tool_id(r, in->tool, 0, &tool_id) == 0 && tool_id &&
	    reg_active_version(r, tool_id, &cur) == 0 && cur == va) {
		ok = 1;
		goto done;
	}
	tg_error_clear();
	cur = 0;
	tool_id = 0;
	/* a removal followed from a signed decision is not undone by the
	 * remote's stale pointer to the version it removed */
	if ((rc = reg_decision_removed(r, in->tool, va, by, sizeof(by))) < 0)
		goto out;
	if (rc == 1) {
		removed = 1;
		snprintf(why, sizeof(why), "v%u was removed here by a signed decision of %s", va, by);
		goto done;
	}
	if (tg_store_get_version(&sv, s, in->tool, va) < 0 || strcmp(sv->commit, in->remote_active)) {
		tg_error_clear();
		snprintf(why, sizeof(why), "v%u of the remote is not in this host's history", va);
		goto done;
	}
	if ((rc = reg_begin(r)) < 0)
		goto out;
	if ((rc = reg_tool_id(r, in->tool, 0, &tool_id)) < 0 ||
	    (rc = reg_version_status(r, tool_id, va, &status)) < 0 ||
	    (rc = reg_active_version(r, tool_id, &cur)) < 0)
		goto fail;
	if (cur == va) {
		ok = 1;
	} else if (bad_signature(s, in->remote_active)) {
		snprintf(why, sizeof(why), "v%u: its signature does not verify", va);
	} else if (!tool_id || !status[0] || !strcmp(status, "rejected") ||
		   !strcmp(status, "failed") || !strcmp(status, "denied")) {
		snprintf(why, sizeof(why), "v%u did not pass here (status %s)", va,
			 status && status[0] ? status : "unknown");
	} else if ((rc = reg_approval_check(&ap, r, tool_id, in->tool, va)) < 0) {
		goto fail;
	} else if (!ap.stands) {
		snprintf(why, sizeof(why), "v%u is not approved here: %s", va, ap.why);
	} else if ((rc = reg_activate(r, tool_id, in->tool, va, "pull", who)) < 0) {
		goto fail;
	} else {
		ok = 1;
	}
	if (!ok) {
		/* reg_audit_append borrows the details: they are ours to free */
		_cleanup_json_ json_t *d = json_pack("{s:i, s:s}", "version", (int)va, "why", why);
		if (!d) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if ((rc = reg_audit_append(r, who, "pull_active_refused", in->tool, d)) < 0)
			goto fail;
	}
	if ((rc = reg_commit(r)) < 0)
		goto out;
done:
	json_object_set_new(res, "active", json_pack("{s:i, s:b, s:s, s:b}", "remote_version", (int)va,
						     "followed", ok, "why", why, "removed", removed));
	rc = 0;
	goto out;
fail:
	reg_rollback(r);
out:
	tg_store_version_free(sv);
	return rc;
}

int tg_registry_pull(json_t **out, tg_registry *r, const char *remote, unsigned flags,
		     const tg_actor *who)
{
	_cleanup_free_ char *name = NULL, *url = NULL;
	_cleanup_json_ json_t *tools = json_array(), *refused = json_array(), *res = NULL;
	_cleanup_json_ json_t *carry = json_array(), *decisions = NULL;
	tg_store_fetch_limits lim;
	tg_store_fetched *f = NULL;
	unsigned ndis = 0, nnew = 0;
	json_t *t, *vv;
	tg_store *s;
	size_t i, j;
	int rc;

	*out = NULL;
	if (!tools || !refused || !carry)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_remote_resolve(&name, &url, &lim, r, remote)) < 0)
		return rc;
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	/* this pull's re-tests share one budget of bridged calls (authz.c) */
	reg_authority_set(r, r->authority, 1);
	if ((rc = tg_store_fetch_into(&f, s, url, &lim)) < 0) {
		tg_error saved = *tg_error_last();
		json_t *d = json_pack("{s:s, s:s, s:s}", "remote", name, "url", url, "error",
				      saved.message);
		if (d && reg_begin(r) == 0) {
			if (reg_audit_append(r, who, "pull_refused", NULL, d) == 0)
				reg_commit(r);
			else
				reg_rollback(r);
		}
		json_decref(d);
		return tg_error_set(saved.code, "%s", saved.message);
	}
	for (i = 0; i < f->refused.n; i++)
		json_array_append_new(refused, json_string(f->refused.items[i]));
	for (i = 0; i < f->n; i++) {
		const tg_store_incoming *in = &f->items[i];
		_cleanup_json_ json_t *versions = json_array(), *ren = json_array();
		char msg[200];
		unsigned v;
		if (!versions || !ren) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto out;
		}
		t = json_pack("{s:s, s:s}", "name", in->tool, "relation", relation_name(in->relation));
		if (!t || json_array_append_new(tools, t) < 0) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto out;
		}
		snprintf(msg, sizeof(msg), "toolgate: pull from %.120s", url);
		if (in->relation == TG_STORE_IN_BAD) {
			json_object_set_new(t, "problem", json_string(in->problem ? in->problem : "refused"));
			json_array_append_new(refused, json_sprintf("tool %s: %s", in->tool,
								    in->problem ? in->problem : "refused"));
			continue;
		}
		if (in->relation == TG_STORE_IN_NEW || in->relation == TG_STORE_IN_AHEAD) {
			for (v = in->local_version + 1; v <= in->remote_version; v++)
				if ((rc = revet_one(r, in->tool, in->remote_tip, v, url, flags, versions,
						   &ndis)) < 0)
					goto out;
			rc = tg_store_adopt(s, in->tool, in->remote_tip, in->local_tip, msg);
		} else if (in->relation == TG_STORE_IN_DIVERGED) {
			rc = reconcile(r, i, in, url, flags, versions, ren, carry, &ndis);
			json_object_set(t, "renumbered", ren);
			json_object_set_new(t, "approvals_carried", json_array());
			json_object_set_new(t, "approvals_not_carried", json_array());
		}
		if (rc < 0) {
			if (tg_error_last()->code != TG_ERR_CONFLICT)
				goto out;
			json_object_set_new(t, "problem", json_string(tg_error_last()->message));
			json_array_append_new(refused, json_sprintf("tool %s: %s", in->tool,
								    tg_error_last()->message));
			tg_error_clear();
			rc = 0;
		}
		nnew += (unsigned)json_array_size(versions);
		json_object_set(t, "versions", versions);
	}
	/* index what moved in (with the local notes), then the active pointers */
	if ((rc = reg_reindex(r, 0)) < 0)
		goto out;
	r->reindexed = 1;
	/* approvals of renumbered versions, where the code is the same */
	json_array_foreach(carry, i, vv) {
		t = json_array_get(tools, (size_t)json_integer_value(json_object_get(vv, "i")));
		if ((rc = carry_one(r, vv, who, t)) < 0)
			goto out;
	}
	/* the remote hosts' signed decisions (decisions.c), before the active
	 * pointers: a followed approval is what lets one be followed */
	if ((rc = reg_decisions_apply(&decisions, r, f, name)) < 0)
		goto out;
	json_array_foreach(tools, i, t) {
		const tg_store_incoming *in = &f->items[i];
		if (in->remote_active[0] && in->relation != TG_STORE_IN_BAD &&
		    (rc = follow(r, in, who, t)) < 0)
			goto out;
	}
	/* the audit: each disagreement, and the pull */
	if ((rc = reg_begin(r)) < 0)
		goto out;
	json_array_foreach(tools, i, t) {
		json_array_foreach(json_object_get(t, "versions"), j, vv) {
			if (json_is_true(json_object_get(vv, "disagree")) &&
			    (rc = reg_audit_append(r, who, "pull_disagreement",
						   json_string_value(json_object_get(t, "name")), vv)) < 0) {
				reg_rollback(r);
				goto out;
			}
		}
	}
	res = json_pack("{s:s, s:s, s:O, s:O, s:i, s:i, s:O}", "remote", name, "url", url, "tools", tools,
			"refused", refused, "disagreements", (int)ndis, "new_versions", (int)nnew,
			"decisions", decisions);
	if (!res) {
		reg_rollback(r);
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	{
		_cleanup_json_ json_t *d = json_pack("{s:s, s:s, s:i, s:i, s:i}", "remote", name, "url",
						     url, "new_versions", (int)nnew, "disagreements",
						     (int)ndis, "refused", (int)json_array_size(refused));
		if (!d || (rc = reg_audit_append(r, who, "pull", NULL, d)) < 0) {
			reg_rollback(r);
			rc = d ? rc : tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if ((rc = reg_commit(r)) < 0)
		goto out;
	*out = TG_TAKE_PTR(res);
	rc = 0;
out:
	tg_store_fetched_free(s, f);
	return rc;
}
