/*
 * store/put.c: committing a new version. The files become blobs and one
 * flat tree (written once); then, until it wins, the writer reads the tip of
 * refs/tools/<tool>, writes a commit on it carrying Toolgate-Version: tip+1
 * and the caller's trailers, and moves the ref with a compare-and-swap
 * against the tip it read (st_ref_cas: git_reference_create_matching under
 * the ref's lock). A lost race (GIT_EMODIFIED, GIT_ELOCKED)
 * backs off for a short random time and retries, a bounded number of times.
 * Objects are written before the ref moves, so a crash leaves the old or the
 * new tip, never a ref to a missing object; lost attempts leave only
 * unreferenced objects for `git gc`.
 */
#include "store_internal.h"

#include <string.h>

static int check_opts(const tg_store_put_opts *o)
{
	size_t i, j;
	int rc, has_manifest = 0, has_source = 0;

	if (!o)
		return tg_error_set(TG_ERR_INVALID, "put: no options");
	if ((rc = st_check_tool(o->tool)) < 0)
		return rc;
	if (o->nfiles == 0 || !o->files)
		return tg_error_set(TG_ERR_INVALID, "tool %s: no files", o->tool);
	if (o->nfiles > ST_MAX_FILES)
		return tg_error_set(TG_ERR_LIMIT, "tool %s: more than %u files", o->tool, ST_MAX_FILES);
	for (i = 0; i < o->nfiles; i++) {
		const tg_store_file *f = &o->files[i];
		if ((rc = st_check_file_name(f->path)) < 0)
			return tg_error_prefix("tool %s", o->tool);
		if (f->len > ST_MAX_FILE_BYTES)
			return tg_error_set(TG_ERR_LIMIT, "tool %s: file %s larger than %u bytes", o->tool,
					    f->path, ST_MAX_FILE_BYTES);
		if (f->len && !f->data)
			return tg_error_set(TG_ERR_INVALID, "tool %s: file %s has no data", o->tool, f->path);
		for (j = 0; j < i; j++)
			if (!strcmp(o->files[j].path, f->path))
				return tg_error_set(TG_ERR_INVALID, "tool %s: file %s given twice", o->tool,
						    f->path);
		has_manifest |= !strcmp(f->path, "tool.json");
		has_source |= !strcmp(f->path, "tool.c");
	}
	if (!has_manifest || !has_source)
		return tg_error_set(TG_ERR_INVALID, "tool %s: a version needs tool.json and tool.c", o->tool);
	if (o->ntrailers > ST_MAX_TRAILERS)
		return tg_error_set(TG_ERR_LIMIT, "tool %s: more than %u trailers", o->tool, ST_MAX_TRAILERS);
	if (o->ntrailers && !o->trailers)
		return tg_error_set(TG_ERR_INVALID, "tool %s: trailers missing", o->tool);
	for (i = 0; i < o->ntrailers; i++)
		if ((rc = st_check_trailer(o->trailers[i].key, o->trailers[i].value)) < 0)
			return tg_error_prefix("tool %s", o->tool);
	if (o->subject && (rc = st_check_line("subject", o->subject, ST_MAX_SUBJECT, 0)) < 0)
		return tg_error_prefix("tool %s", o->tool);
	if (o->author_name && ((rc = st_check_line("author name", o->author_name, ST_MAX_AUTHOR, 0)) < 0 ||
			       strpbrk(o->author_name, "<>")))
		return rc < 0 ? rc : tg_error_set(TG_ERR_INVALID, "author name: must not contain < or >");
	if (o->author_email && ((rc = st_check_line("author email", o->author_email, ST_MAX_AUTHOR, 0)) < 0 ||
				strpbrk(o->author_email, "<> \t")))
		return rc < 0 ? rc : tg_error_set(TG_ERR_INVALID, "author email: must not contain <, > or blanks");
	return 0;
}

static int write_tree(git_oid *out, tg_store *s, const tg_store_put_opts *o)
{
	git_treebuilder *tb = NULL;
	size_t i;
	int rc;

	if ((rc = git_treebuilder_new(&tb, s->repo, NULL)) < 0)
		return st_git_fail(rc, "tree builder");
	for (i = 0; i < o->nfiles; i++) {
		git_oid blob;
		const tg_store_file *f = &o->files[i];
		if ((rc = git_blob_create_from_buffer(&blob, s->repo, f->len ? f->data : "", f->len)) < 0) {
			rc = st_git_fail(rc, "write %s", f->path);
			goto out;
		}
		if ((rc = git_treebuilder_insert(NULL, tb, f->path, &blob, GIT_FILEMODE_BLOB)) < 0) {
			rc = st_git_fail(rc, "tree entry %s", f->path);
			goto out;
		}
	}
	if ((rc = git_treebuilder_write(out, tb)) < 0)
		rc = st_git_fail(rc, "write tree");
out:
	git_treebuilder_free(tb);
	return rc;
}

int tg_store_put(tg_store_version **out, tg_store *s, const tg_store_put_opts *o)
{
	git_signature *author = NULL, *committer = NULL;
	git_tree *tree = NULL;
	git_commit *commit = NULL;
	git_oid tree_id, commit_id;
	char ref[128];
	unsigned attempt;
	uint64_t start = tg_now_ms();
	int rc;

	if (out)
		*out = NULL;
	if (!s)
		return tg_error_set(TG_ERR_INVALID, "put: no store");
	if ((rc = check_opts(o)) < 0)
		return rc;
	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, o->tool);
	if ((rc = git_signature_now(&author, o->author_name ? o->author_name : "toolgate",
				    o->author_email ? o->author_email : "toolgate@localhost")) < 0 ||
	    (rc = git_signature_now(&committer, "toolgate", "toolgate@localhost")) < 0) {
		rc = st_git_fail(rc, "signature");
		goto out;
	}
	if ((rc = write_tree(&tree_id, s, o)) < 0)
		goto out;
	if ((rc = git_tree_lookup(&tree, s->repo, &tree_id)) < 0) {
		rc = st_git_fail(rc, "read tree");
		goto out;
	}
	for (attempt = 0;; attempt++) {
		git_commit *parent = NULL;
		unsigned prev = 0;
		_cleanup_free_ char *msg = NULL;
		_cleanup_free_ char *subject = NULL;
		char logmsg[160];

		rc = st_lookup_tip(&parent, &prev, s, o->tool);
		if (rc == TG_ERR_NOTFOUND) {
			parent = NULL;
			prev = 0;
		} else if (rc < 0) {
			goto out;
		}
		if (prev >= 999999999u) { /* versions have at most 9 digits */
			git_commit_free(parent);
			rc = tg_error_set(TG_ERR_LIMIT, "tool %s: too many versions", o->tool);
			goto out;
		}
		if (!o->subject && asprintf(&subject, "%s: version %u", o->tool, prev + 1) < 0)
			subject = NULL;
		if ((!o->subject && !subject) ||
		    (rc = st_message_build(&msg, o->subject ? o->subject : subject, prev + 1, o->trailers,
					   o->ntrailers)) < 0) {
			git_commit_free(parent);
			rc = rc < 0 ? rc : tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto out;
		}
		rc = st_commit_write(&commit_id, s, author, committer, msg, tree, parent ? 1 : 0,
				     (const git_commit **)&parent);
		if (rc < 0) {
			git_commit_free(parent);
			rc = st_git_fail(rc, "tool %s: write commit", o->tool);
			goto out;
		}
		snprintf(logmsg, sizeof(logmsg), "toolgate: put %s version %u", o->tool, prev + 1);
		rc = st_ref_cas(s, ref, &commit_id, parent ? git_commit_id(parent) : NULL, logmsg);
		git_commit_free(parent);
		if (rc == 0)
			break;
		if (rc != GIT_EMODIFIED && rc != GIT_ELOCKED) {
			rc = st_git_fail(rc, "tool %s: update %s", o->tool, ref);
			goto out;
		}
		if (!st_may_retry(attempt, start)) {
			rc = tg_error_set(TG_ERR_CONFLICT, "tool %s: %s still contended after %u tries", o->tool,
					  ref, attempt + 1);
			goto out;
		}
		if (rc == GIT_ELOCKED && attempt % 8 == 7)
			st_clear_stale_locks(s);
		st_backoff(attempt);
	}
	if (out) {
		if ((rc = git_commit_lookup(&commit, s->repo, &commit_id)) < 0) {
			rc = st_git_fail(rc, "read back commit");
			goto out;
		}
		rc = st_version_from_commit(out, o->tool, commit);
	}
out:
	git_commit_free(commit);
	git_tree_free(tree);
	git_signature_free(author);
	git_signature_free(committer);
	return rc;
}
