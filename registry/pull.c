/*
 * registry/pull.c: `toolgate pull` (docs/STORE.md, "Replication with
 * vetting"). What a remote says is a claim. The store fetches into a private
 * namespace under caps (store/sync.c); then every version new here is
 * re-vetted, re-built and its tests re-run here (reg_revet, the create
 * pipeline's steps on the stored tool.json and tool.c), and this host's
 * verdict is written as a local note on the commit before the history moves
 * into refs/tools/ (so a re-index, here or by a concurrent process, indexes
 * the local verdict, never the trailers). A claim that disagrees is in the
 * answer and in the audit log (pull_disagreement). When both sides added
 * versions, this host's unpushed ones are copied on top of the remote's,
 * renumbered (their approvals do not follow: a person approves again) and
 * re-verified. Each new version's signature (a claim of the host that
 * vetted it, keys.c) is checked and recorded with the local verdict; a bad
 * one is a disagreement. A remote active pointer is followed only to a version that
 * passed here and whose approval stands here (approvals never travel).
 */
#include "reg_internal.h"

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
 * "claimed_verdict","claimed_content_hash","signature","disagree"} to versions. */
static int revet_one(tg_registry *r, const char *tool, const char *tip, unsigned v,
		     const char *url, json_t *versions, unsigned *ndisagree)
{
	_cleanup_free_ char *mj = NULL, *src = NULL, *note = NULL;
	_cleanup_json_ json_t *manifest = NULL, *local = NULL, *sig = NULL;
	tg_json_limits lim = { 4u << 20, 64 };
	tg_store_version *sv = NULL;
	const char *cs, *cv, *ch, *ls, *lv, *lh;
	size_t mlen = 0, slen = 0;
	tg_store *s;
	int rc, disagree;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if ((rc = tg_store_version_at(&sv, s, tool, tip, v)) < 0)
		return tg_error_prefix("store");
	if (tg_store_get_file_at(&mj, &mlen, s, sv->commit, "tool.json") < 0 ||
	    tg_store_get_file_at(&src, &slen, s, sv->commit, "tool.c") < 0 ||
	    tg_json_parse(&manifest, mj, mlen, &lim) < 0 || !json_is_object(manifest)) {
		json_decref(manifest);
		manifest = NULL;
		local = json_pack("{s:s, s:s, s:s, s:s, s:[], s:[]}", "status", "rejected", "verdict",
				  "reject", "reason", "tool.json or tool.c unreadable", "content_hash",
				  "", "findings", "tests");
		tg_error_clear();
	} else if ((rc = reg_revet(&local, r, manifest, src, slen)) < 0) {
		goto out;
	}
	if (!local) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	cs = tg_store_version_trailer(sv, "Toolgate-Status");
	cv = tg_store_version_trailer(sv, "Toolgate-Verdict");
	ch = tg_store_version_trailer(sv, "Toolgate-Content-Hash");
	ls = json_string_value(json_object_get(local, "status"));
	lv = json_string_value(json_object_get(local, "verdict"));
	lh = json_string_value(json_object_get(local, "content_hash"));
	disagree = passed(cs, cv) != passed(ls, lv) || !ch || strcmp(ch, lh) != 0;
	/* the signer's claim: checked and recorded, never a substitute for
	 * the re-vetting above; a signature that does not verify disagrees */
	if ((rc = reg_signature_json(&sig, r, sv->commit)) < 0)
		goto out;
	if (!strcmp(json_string_value(json_object_get(sig, "state")), "bad"))
		disagree = 1;
	json_object_set(local, "signature", sig);
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
	json_array_append_new(versions,
			      json_pack("{s:i, s:s, s:s, s:s, s:O, s:s?, s:s?, s:s?, s:O, s:b}",
					"version", (int)v, "commit", sv->commit, "status", ls, "verdict",
					lv, "reason", json_object_get(local, "reason"), "claimed_status",
					cs, "claimed_verdict", cv, "claimed_content_hash", ch, "signature",
					sig, "disagree", disagree));
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

/* Both sides added versions: re-vet the remote's, copy ours on top,
 * re-verify them, move refs/tools (and our active pointer, if it was one of
 * ours) by compare-and-swap. */
static int reconcile(tg_registry *r, const tg_store_incoming *in, const char *url,
		     json_t *versions, json_t *renumbered, unsigned *ndis)
{
	char newtip[41], msg[200], act[41] = "";
	unsigned v, act_v = 0, k;
	tg_store *s;
	int rc;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	for (v = in->base_version + 1; v <= in->remote_version; v++)
		if ((rc = revet_one(r, in->tool, in->remote_tip, v, url, versions, ndis)) < 0)
			return rc;
	if ((rc = tg_store_rebase(newtip, s, in->tool, in->remote_tip, in->local_tip,
				  in->base_version)) < 0)
		return tg_error_prefix("store");
	for (k = 1; k <= in->local_version - in->base_version; k++) {
		if ((rc = revet_one(r, in->tool, newtip, in->remote_version + k, "(this host, renumbered)",
				    versions, ndis)) < 0)
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
	char why[600] = "";
	int64_t tool_id = 0;
	reg_approval ap;
	tg_store *s;
	int rc, ok = 0;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
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
	json_object_set_new(res, "active", json_pack("{s:i, s:b, s:s}", "remote_version", (int)va,
						     "followed", ok, "why", why));
	rc = 0;
	goto out;
fail:
	reg_rollback(r);
out:
	tg_store_version_free(sv);
	return rc;
}

int tg_registry_pull(json_t **out, tg_registry *r, const char *remote, const tg_actor *who)
{
	_cleanup_free_ char *name = NULL, *url = NULL;
	_cleanup_json_ json_t *tools = json_array(), *refused = json_array(), *res = NULL;
	tg_store_fetch_limits lim;
	tg_store_fetched *f = NULL;
	unsigned ndis = 0, nnew = 0;
	json_t *t, *vv;
	tg_store *s;
	size_t i, j;
	int rc;

	*out = NULL;
	if (!tools || !refused)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_remote_resolve(&name, &url, &lim, r, remote)) < 0)
		return rc;
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
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
				if ((rc = revet_one(r, in->tool, in->remote_tip, v, url, versions, &ndis)) < 0)
					goto out;
			rc = tg_store_adopt(s, in->tool, in->remote_tip, in->local_tip, msg);
		} else if (in->relation == TG_STORE_IN_DIVERGED) {
			rc = reconcile(r, in, url, versions, ren, &ndis);
			json_object_set(t, "renumbered", ren);
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
	res = json_pack("{s:s, s:s, s:O, s:O, s:i, s:i}", "remote", name, "url", url, "tools", tools,
			"refused", refused, "disagreements", (int)ndis, "new_versions", (int)nnew);
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
