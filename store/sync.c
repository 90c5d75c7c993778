/*
 * store/sync.c: what `toolgate pull` does with histories the fetch
 * (fetch.c) admitted into the store (docs/STORE.md, "Replication with
 * vetting"): read a version of a fetched chain and one of its files by
 * commit id (the registry re-vets every new version from them),
 * tg_store_adopt and tg_store_adopt_active move refs/tools/<name> and
 * refs/active/<name> by compare-and-swap once the registry recorded its own
 * verdict, and tg_store_rebase puts this host's unpushed versions back on
 * top of the remote's, renumbered.
 */
#include "store_internal.h"

#include <string.h>

static int lookup_hex(git_commit **out, tg_store *s, const char *hex)
{
	git_oid id;

	*out = NULL;
	if (!hex || strlen(hex) != GIT_OID_HEXSZ || git_oid_fromstr(&id, hex) < 0)
		return tg_error_set(TG_ERR_INVALID, "not a commit id: %.64s", hex ? hex : "(null)");
	if (git_commit_lookup(out, s->repo, &id) < 0)
		return tg_error_set(TG_ERR_NOTFOUND, "commit %s: not in the store", hex);
	return 0;
}

int tg_store_version_at(tg_store_version **out, tg_store *s, const char *tool, const char *tip,
			unsigned v)
{
	git_commit *t = NULL, *c = NULL;
	unsigned tv = 0, got = 0;
	int rc;

	*out = NULL;
	if ((rc = st_check_tool(tool)) < 0 || (rc = lookup_hex(&t, s, tip)) < 0)
		return rc;
	if ((rc = st_commit_version(&tv, t)) < 0)
		goto out;
	if (v == 0 || v > tv) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "tool %s: no version %u below %.12s", tool, v, tip);
		goto out;
	}
	if ((rc = git_commit_nth_gen_ancestor(&c, t, tv - v)) < 0) {
		rc = st_git_fail(rc, "tool %s: version %u", tool, v);
		goto out;
	}
	if ((rc = st_commit_version(&got, c)) < 0)
		goto out;
	if (got != v) {
		rc = tg_error_set(TG_ERR_INVALID, "tool %s: commit %.12s is version %u, not %u", tool,
				  git_oid_tostr_s(git_commit_id(c)), got, v);
		goto out;
	}
	rc = st_version_from_commit(out, tool, c);
out:
	git_commit_free(c);
	git_commit_free(t);
	return rc;
}

int tg_store_get_file_at(char **out, size_t *len_out, tg_store *s, const char *commit,
			 const char *path)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_blob *b = NULL;
	const git_tree_entry *e;
	int rc;

	*out = NULL;
	*len_out = 0;
	if ((rc = st_check_file_name(path)) < 0 || (rc = lookup_hex(&c, s, commit)) < 0)
		return rc;
	if (git_commit_tree(&t, c) < 0) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "commit %.12s: tree missing", commit);
		goto out;
	}
	e = git_tree_entry_byname(t, path);
	if (!e || git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB ||
	    git_blob_lookup(&b, s->repo, git_tree_entry_id(e)) < 0) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "commit %.12s: no file %s", commit, path);
		goto out;
	}
	if (git_blob_rawsize(b) > ST_MAX_FILE_BYTES) {
		rc = tg_error_set(TG_ERR_LIMIT, "commit %.12s: %s is over %u bytes", commit, path,
				  ST_MAX_FILE_BYTES);
		goto out;
	}
	*len_out = (size_t)git_blob_rawsize(b);
	*out = malloc(*len_out + 1);
	if (!*out) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	memcpy(*out, git_blob_rawcontent(b), *len_out);
	(*out)[*len_out] = '\0';
	rc = 0;
out:
	git_blob_free(b);
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

/* Compare-and-swap with the ELOCKED retries of every store writer. */
static int cas_retry(tg_store *s, const char *name, const git_oid *new_id, const git_oid *old_id,
		     const char *msg)
{
	uint64_t start = tg_now_ms();
	unsigned attempt;
	int rc;

	for (attempt = 0;; attempt++) {
		rc = st_ref_cas(s, name, new_id, old_id, msg);
		if (rc == 0)
			return 0;
		if (rc == GIT_EMODIFIED)
			return tg_error_set(TG_ERR_CONFLICT, "%s moved meanwhile", name);
		if (rc != GIT_ELOCKED || !st_may_retry(attempt, start))
			return st_git_fail(rc, "update %s", name);
		if (attempt % 8 == 7)
			st_clear_stale_locks(s);
		st_backoff(attempt);
	}
}

int tg_store_adopt(tg_store *s, const char *tool, const char *new_tip, const char *old_tip,
		   const char *msg)
{
	git_oid n, o;
	char ref[128];
	int rc;

	if ((rc = st_check_tool(tool)) < 0 || (rc = st_check_line("message", msg, 1024, 0)) < 0)
		return rc;
	if (git_oid_fromstr(&n, new_tip) < 0 || (old_tip[0] && git_oid_fromstr(&o, old_tip) < 0))
		return tg_error_set(TG_ERR_INVALID, "adopt %s: bad commit id", tool);
	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, tool);
	return cas_retry(s, ref, &n, old_tip[0] ? &o : NULL, msg);
}

int tg_store_adopt_active(tg_store *s, const char *tool, const char *commit, const char *old,
			  const char *msg)
{
	git_oid n, o;
	char ref[128];
	int rc;

	if ((rc = st_check_tool(tool)) < 0)
		return rc;
	if (git_oid_fromstr(&n, commit) < 0 || (old[0] && git_oid_fromstr(&o, old) < 0))
		return tg_error_set(TG_ERR_INVALID, "adopt %s: bad commit id", tool);
	st_ref_name(ref, sizeof(ref), ST_ACTIVE_PREFIX, tool);
	return cas_retry(s, ref, &n, old[0] ? &o : NULL, msg);
}

/* Copy the commits of the local chain above version base onto onto,
 * renumbered from onto's version + 1 (same trees, subjects, trailers and
 * authors). *out_tip = the new tip (not yet referenced). */
int tg_store_rebase(char out_tip[41], tg_store *s, const char *tool, const char *onto,
		    const char *local_tip, unsigned base)
{
	git_commit *ontoc = NULL, *tip = NULL, **chain = NULL, *parent = NULL;
	git_signature *committer = NULL;
	unsigned tipv = 0, ontov = 0, k, n = 0;
	int rc;

	out_tip[0] = '\0';
	if ((rc = st_check_tool(tool)) < 0 || (rc = lookup_hex(&ontoc, s, onto)) < 0)
		return rc;
	if ((rc = lookup_hex(&tip, s, local_tip)) < 0 || (rc = st_commit_version(&tipv, tip)) < 0 ||
	    (rc = st_commit_version(&ontov, ontoc)) < 0)
		goto out;
	if (tipv <= base) {
		rc = tg_error_set(TG_ERR_INVALID, "rebase %s: nothing above version %u", tool, base);
		goto out;
	}
	n = tipv - base;
	chain = calloc(n, sizeof(*chain));
	if (!chain) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < n; k++) {
		if ((rc = git_commit_nth_gen_ancestor(&chain[n - 1 - k], tip, k)) < 0) {
			rc = st_git_fail(rc, "rebase %s", tool);
			goto out;
		}
	}
	if ((rc = git_signature_now(&committer, "toolgate", "toolgate@localhost")) < 0) {
		rc = st_git_fail(rc, "signature");
		goto out;
	}
	parent = ontoc;
	ontoc = NULL;
	for (k = 0; k < n; k++) {
		_cleanup_free_ char *subject = NULL, *msg = NULL;
		tg_store_trailer *tr = NULL, *keep;
		size_t nt = 0, i, nk = 0;
		git_tree *tree = NULL;
		git_oid id;
		git_commit *nc = NULL;
		if ((rc = st_message_parse(&subject, &tr, &nt, git_commit_message(chain[k]))) < 0)
			goto out;
		keep = calloc(nt + 1, sizeof(*keep));
		if (!keep) {
			st_trailers_free(tr, nt);
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < nt; i++)
			if (strcasecmp(tr[i].key, ST_VERSION_KEY))
				keep[nk++] = tr[i];
		rc = st_message_build(&msg, subject, ontov + 1 + k, keep, nk);
		free(keep);
		st_trailers_free(tr, nt);
		if (rc < 0)
			goto out;
		if ((rc = git_commit_tree(&tree, chain[k])) < 0) {
			rc = st_git_fail(rc, "rebase %s: tree", tool);
			goto out;
		}
		rc = st_commit_write(&id, s, git_commit_author(chain[k]), committer, msg, tree, 1,
				     (const git_commit **)&parent);
		git_tree_free(tree);
		if (rc < 0 || (rc = git_commit_lookup(&nc, s->repo, &id)) < 0) {
			rc = st_git_fail(rc, "rebase %s: write commit", tool);
			goto out;
		}
		git_commit_free(parent);
		parent = nc;
	}
	git_oid_tostr(out_tip, 41, git_commit_id(parent));
	rc = 0;
out:
	if (chain)
		for (k = 0; k < n; k++)
			git_commit_free(chain[k]);
	free(chain);
	git_signature_free(committer);
	git_commit_free(parent);
	git_commit_free(tip);
	git_commit_free(ontoc);
	return rc;
}

