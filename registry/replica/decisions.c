/*
 * registry/replica/decisions.c: the decisions of other hosts, read on pull
 * from the signed lines of their review notes (store/review_carry.c; the
 * line format is record/decision.c's). Every entry is a claim until all of
 * these hold, checked in this order:
 *  1. it parses, and its signature over the signed bytes verifies in the
 *     decision namespace (`ssh-keygen -Y check-novalidate/-Y verify -n
 *     toolgate-decision`, store/sign.c) by the key it names: else refused;
 *  2. it is bound to the version whose commit carries the note (same tool
 *     and version number), to that version's content hash here and to its
 *     capability set here: else refused;
 *  3. its key was not revoked here before it was signed
 *     (approver_revocations, record/approvers.c): else refused;
 *  4. its key is in <home>/trusted_approvers: else a claim, not followed;
 *  5. the version passed here (re-vetted and re-tested by this pull or an
 *     earlier one: pending, inactive, active or held): else a claim.
 * Then the decision is applied through the registry's own code, the very
 * functions a person here runs (tg_registry_approve, _deny, _remove,
 * _promote: one place decides; a refusal there leaves it a claim, with
 * that reason), as actor "remote:PRINCIPAL", with r->following set so it
 * is not signed again by this host, and audited "decision_followed" with
 * the signer's key. Each entry's state is kept in remote_decisions (keyed
 * by the sha256 of the commit it is on and its line): one followed (or
 * found already in force) is never applied again; claims and refusals are checked again at every
 * pull (a key trusted or revoked meanwhile counts from that pull on).
 */
#include "registry/replica/replica.h"

#include <string.h>

typedef struct here {
	char tool[65];
	unsigned version;
	int64_t tool_id;
	char *status, *hash, *caps;
} here;

static void here_free(here *h)
{
	free(h->status);
	free(h->hash);
	free(h->caps);
}

/* The version whose commit is commit, here (h->tool "" when none). */
static int version_here(here *h, tg_registry *r, const char *commit)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = reg_prepare(r, &st, "SELECT t.name, v.version, t.id, v.status, v.content_hash, "
				 "v.capabilities FROM versions v JOIN tools t ON t.id = v.tool_id "
				 "WHERE v.commit_id = ?1");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, commit);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read version");
	snprintf(h->tool, sizeof(h->tool), "%s", (const char *)sqlite3_column_text(st, 0));
	h->version = (unsigned)sqlite3_column_int64(st, 1);
	h->tool_id = sqlite3_column_int64(st, 2);
	h->status = strdup((const char *)sqlite3_column_text(st, 3));
	h->hash = strdup((const char *)sqlite3_column_text(st, 4));
	h->caps = strdup((const char *)sqlite3_column_text(st, 5));
	if (!h->status || !h->hash || !h->caps)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

/* Are two capability sets (JSON arrays as text) the same set? */
static int same_caps(const char *a, const char *b)
{
	json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
	json_t *na = ja ? reg_caps_norm(ja) : NULL, *nb = jb ? reg_caps_norm(jb) : NULL;
	int eq = na && nb && json_equal(na, nb);

	json_decref(ja);
	json_decref(jb);
	json_decref(na);
	json_decref(nb);
	return eq;
}

/* The state of an entry seen before ("" when new). */
static int state_of(char *out, size_t size, tg_registry *r, const char *entry)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	out[0] = '\0';
	if ((rc = reg_prepare(r, &st, "SELECT state FROM remote_decisions WHERE entry = ?1")) < 0)
		return rc;
	reg_bind_text(st, 1, entry);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read remote decisions");
	return 0;
}

/* Apply a checked decision with the registry's own functions: 1 followed,
 * 0 already in force here, -2 refused there (why says why; not an error). */
static int apply(tg_registry *r, const reg_decision *d, const here *h, const char *principal,
		 const char *key, char *why, size_t wsize)
{
	_cleanup_json_ json_t *res = NULL;
	tg_actor who = { "remote", principal };
	unsigned cur = 0;
	reg_approval ap;
	char reason[300];
	int rc;

	if (!strcmp(d->decision, "approve")) {
		if ((rc = reg_approval_check(&ap, r, h->tool_id, h->tool, h->version)) < 0)
			return rc;
		if (ap.needs && ap.stands)
			return 0;
		r->following = 1;
		rc = tg_registry_approve(&res, r, h->tool, h->version, 0, &who);
	} else if (!strcmp(d->decision, "deny")) {
		if (!strcmp(h->status, "denied"))
			return 0;
		snprintf(reason, sizeof(reason), "signed by %.100s (%.100s)", principal, key);
		r->following = 1;
		rc = tg_registry_deny(&res, r, h->tool, h->version, reason, &who);
	} else if (!strcmp(d->decision, "remove")) {
		if ((rc = reg_active_version(r, h->tool_id, &cur)) < 0)
			return rc;
		if (cur == 0)
			return 0;
		if (cur != h->version) {
			snprintf(why, wsize, "v%u is not the active version here (v%u is)", h->version, cur);
			return -2;
		}
		r->following = 1;
		rc = tg_registry_remove(&res, r, h->tool, &who);
	} else {
		if (!strcmp(h->status, "active"))
			return 0;
		r->following = 1;
		rc = tg_registry_promote(&res, r, h->tool, h->version, &who);
	}
	r->following = 0;
	if (rc < 0) {
		if (tg_error_last()->code == TG_ERR_NOMEM || tg_error_last()->code == TG_ERR_IO)
			return rc;
		snprintf(why, wsize, "%.500s", tg_error_last()->message);
		tg_error_clear();
		return -2;
	}
	return 1;
}

static int passed_here(const char *status)
{
	return !strcmp(status, "pending") || !strcmp(status, "inactive") || !strcmp(status, "active") ||
	       !strcmp(status, "held") || !strcmp(status, "denied");
}

/* Checks 1 to 5 and the application: state and why. */
static int judge(tg_registry *r, const reg_decision *d, const here *h, const char *allowed,
		 tg_store_sig *sig, const char **state, char *why, size_t wsize)
{
	int64_t revoked = 0;
	int rc;

	*state = "refused";
	if ((rc = tg_store_data_signature(sig, REG_DECISION_NS, d->payload, strlen(d->payload), d->sig,
					  allowed)) < 0)
		return rc;
	if (sig->state == TG_STORE_SIG_BAD) {
		snprintf(why, wsize, "the signature does not verify (%s)", sig->why);
		return 0;
	}
	if (strcmp(sig->key, d->signer) != 0) {
		snprintf(why, wsize, "the entry names signer %.60s, the signature is by key %.60s", d->signer,
			 sig->key);
		return 0;
	}
	if (strcmp(d->tool, h->tool) != 0 || d->version != h->version) {
		snprintf(why, wsize, "the entry is for %s v%u, the note is on %s v%u", d->tool, d->version,
			 h->tool, h->version);
		return 0;
	}
	if (strcmp(d->content_hash, h->hash) != 0) {
		snprintf(why, wsize, "the entry is bound to content hash %.12s, this version's is %.12s",
			 d->content_hash, h->hash);
		return 0;
	}
	if (!same_caps(d->caps, h->caps)) {
		snprintf(why, wsize, "the entry is bound to capabilities %.200s, this version asks for %.200s",
			 d->caps, h->caps);
		return 0;
	}
	if ((rc = reg_approver_revoked_at(r, sig->key, &revoked)) < 0)
		return rc;
	if (revoked && d->at > revoked) {
		snprintf(why, wsize, "signed at %lld, after key %.60s was revoked here at %lld",
			 (long long)d->at, sig->key, (long long)revoked);
		return 0;
	}
	*state = "claim";
	if (sig->state != TG_STORE_SIG_GOOD) {
		snprintf(why, wsize, "%s", sig->why);
		return 0;
	}
	if (!passed_here(h->status)) {
		snprintf(why, wsize, "v%u did not pass here (status %s)", h->version, h->status);
		return 0;
	}
	rc = apply(r, d, h, sig->principal, sig->key, why, wsize);
	if (rc == -2)
		return 0;
	if (rc < 0)
		return rc;
	*state = rc == 1 ? "followed" : "already";
	why[0] = '\0';
	return 0;
}

/* Keep the entry's state, and audit what is followed or newly refused. */
static int record(tg_registry *r, const char *entry, const reg_decision *d, const here *h,
		  const tg_store_sig *sig, const char *state, const char *why, const char *prev,
		  const char *remote)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *det = NULL;
	tg_actor who = { "remote", sig->principal[0] ? sig->principal : NULL };
	int rc;

	if ((rc = reg_begin(r)) < 0)
		return rc;
	rc = reg_prepare(r, &st, "INSERT OR REPLACE INTO remote_decisions(entry, tool, version, decision, "
				 "signer, principal, signed_at, state, why, seen_at) VALUES(?1, ?2, ?3, ?4, "
				 "?5, ?6, ?7, ?8, ?9, ?10)");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, entry);
	reg_bind_text(st, 2, h->tool);
	sqlite3_bind_int64(st, 3, h->version);
	reg_bind_text(st, 4, d->decision[0] ? d->decision : "?");
	reg_bind_text(st, 5, sig->key[0] ? sig->key : d->signer);
	reg_bind_text(st, 6, sig->principal);
	sqlite3_bind_int64(st, 7, d->at);
	reg_bind_text(st, 8, state);
	reg_bind_text(st, 9, why);
	sqlite3_bind_int64(st, 10, tg_time_now());
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record remote decision");
		goto fail;
	}
	if (!strcmp(state, "followed") || (!strcmp(state, "refused") && strcmp(prev, "refused"))) {
		det = json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:s, s:s}", "decision", d->decision,
				"version", (int)h->version, "signer", sig->key[0] ? sig->key : d->signer,
				"principal", sig->principal, "remote", remote, "signed_at", (json_int_t)d->at,
				"entry", entry, "why", why);
		if (!det) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if ((rc = reg_audit_append(r, &who, !strcmp(state, "followed") ? "decision_followed"
										 : "decision_refused",
					   h->tool, det)) < 0)
			goto fail;
	}
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

static int one(tg_registry *r, const tg_store_decision *e, const char *allowed, const char *remote,
	       json_t *list)
{
	reg_decision d;
	tg_store_sig sig;
	here h;
	char entry[65], prev[16], why[600] = "";
	const char *state = "refused";
	json_t *row;
	int rc;

	memset(&sig, 0, sizeof(sig));
	{ /* the same line on another commit is another entry */
		tg_sha256 sh;
		tg_sha256_init(&sh);
		tg_sha256_update(&sh, e->commit, strlen(e->commit));
		tg_sha256_update(&sh, " ", 1);
		tg_sha256_update(&sh, e->line, strlen(e->line));
		tg_sha256_final_hex(&sh, entry);
	}
	if ((rc = state_of(prev, sizeof(prev), r, entry)) < 0)
		return rc;
	if (!strcmp(prev, "followed") || !strcmp(prev, "already"))
		return 0;
	if ((rc = version_here(&h, r, e->commit)) < 0 || !h.tool[0]) {
		here_free(&h);
		return rc; /* a note on a commit this host does not hold */
	}
	if (reg_decision_parse(&d, e->line) < 0) {
		snprintf(why, sizeof(why), "%.500s", tg_error_last()->message);
		tg_error_clear();
		snprintf(d.decision, sizeof(d.decision), "?");
	} else if ((rc = judge(r, &d, &h, allowed, &sig, &state, why, sizeof(why))) < 0) {
		goto out;
	}
	if ((rc = record(r, entry, &d, &h, &sig, state, why, prev, remote)) < 0)
		goto out;
	row = json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:s, s:s, s:s}", "tool", h.tool, "version",
			(int)h.version, "decision", d.decision, "signer", sig.key[0] ? sig.key : d.signer,
			"principal", sig.principal, "signed_at", (json_int_t)d.at, "state", state, "why",
			why, "from", e->from);
	rc = row && json_array_append_new(list, row) == 0 ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
out:
	r->following = 0;
	here_free(&h);
	return rc;
}

int reg_decisions_apply(json_t **out, tg_registry *r, const tg_store_fetched *f, const char *remote)
{
	_cleanup_free_ char *allowed = reg_trusted_approvers_path(r);
	_cleanup_json_ json_t *list = json_array();
	size_t i;
	int rc;

	*out = NULL;
	if (!allowed || !list)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < f->ndecisions; i++)
		if ((rc = one(r, &f->decisions[i], allowed, remote, list)) < 0)
			return rc;
	*out = TG_TAKE_PTR(list);
	return 0;
}

int reg_decision_removed(tg_registry *r, const char *tool, unsigned v, char *by, size_t size)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	by[0] = '\0';
	rc = reg_prepare(r, &st, "SELECT signer FROM remote_decisions WHERE tool = ?1 AND version = ?2 "
				 "AND decision = 'remove' AND state IN ('followed', 'already') LIMIT 1");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, tool);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(by, size, "%s", (const char *)sqlite3_column_text(st, 0));
		return 1;
	}
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "read remote decisions");
}
