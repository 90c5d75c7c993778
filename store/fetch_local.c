/*
 * store/fetch_local.c: a pull from a remote on this machine (a path or a
 * file:// URL; docs/STORE.md, "Bounds of a pull"). libgit2's local
 * transport is not used: it peels every advertised tag (reading its target
 * whole) and packs the objects of every ref the remote has, whatever the
 * refspecs say, so a ref the pull refuses by name would still be read,
 * inflated and delta-searched here. Instead the remote repository is opened
 * read-only and
 *  - its refs are listed by name and target only (st_local_list: nothing
 *    peeled, nothing read behind them);
 *  - each history the pull accepts by name is checked from object headers
 *    before anything is copied (st_local_precheck: every commit and tree
 *    under its size cap, only blobs in a tree, every blob at most the
 *    store's file cap; a tool that fails is refused and not copied);
 *  - the objects of those histories, and only those, are copied one at a
 *    time into the quarantine (st_local_copy: read whole only after their
 *    header passed; the caps on objects and bytes count them), and the
 *    private ref <ns>tools/<name> is set there.
 * All of it runs in the pull's bounded fetch process (bounded.c).
 */
#include "store_internal.h"

#include <string.h>

const char *st_local_path(const char *url)
{
	if (!strncmp(url, "file://", 7))
		return url + 7;
	return strstr(url, "://") ? NULL : url;
}

int st_local_open(git_repository **out, const char *url)
{
	int rc;

	*out = NULL;
	if ((rc = git_repository_open_ext(out, st_local_path(url), GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) < 0)
		return st_git_fail(rc, "connect to %s", url);
	return 0;
}

int st_local_list(tg_store_fetched *f, git_repository *rr, const char *url, size_t max_refs)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	size_t n = 0;
	int rc;

	if ((rc = git_reference_iterator_new(&it, rr)) < 0)
		return st_git_fail(rc, "list refs of %s", url);
	while ((rc = git_reference_next(&ref, it)) == 0) {
		if (git_reference_type(ref) == GIT_REFERENCE_DIRECT) {
			if (max_refs && ++n > max_refs) {
				rc = tg_error_set(TG_ERR_LIMIT, "remote %s: advertises more than the cap of %zu refs",
						  url, max_refs);
				break;
			}
			rc = st_fetch_take_ref(f, git_reference_name(ref), git_reference_target(ref));
		}
		git_reference_free(ref);
		ref = NULL;
		if (rc < 0)
			break;
	}
	git_reference_iterator_free(it);
	if (rc == GIT_ITEROVER)
		return 0;
	return rc < 0 && tg_error_last()->code ? rc : st_git_fail(rc, "list refs of %s", url);
}

/* The size and type of an object from its header; -1 when it is missing. */
static int header(size_t *len, git_object_t *type, git_odb *odb, const git_oid *id)
{
	*len = 0;
	if (git_odb_read_header(len, type, odb, id) < 0) {
		git_error_clear();
		return -1;
	}
	return 0;
}

/* One commit and its tree, from headers; a problem added to l names why. */
static int precheck_commit(tg_store_problem_list *l, git_repository *rr, git_odb *rodb,
			   const char *tool, const git_oid *id)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_object_t type;
	unsigned v = 0;
	size_t i, len;
	int rc = 0;

	if (header(&len, &type, rodb, id) < 0 || type != GIT_OBJECT_COMMIT)
		return 0; /* the copy and the chain checks report it */
	if (len > ST_MAX_COMMIT_BYTES)
		return st_problem_add(l, "tool %s: commit %s is %zu bytes, over the cap of %u", tool,
				      git_oid_tostr_s(id), len, ST_MAX_COMMIT_BYTES);
	if (git_commit_lookup(&c, rr, id) < 0)
		return 0;
	if (st_commit_version(&v, c) < 0)
		v = 0;
	tg_error_clear();
	if (header(&len, &type, rodb, git_commit_tree_id(c)) < 0 || type != GIT_OBJECT_TREE)
		goto out;
	if (len > ST_MAX_TREE_BYTES) {
		rc = st_problem_add(l, "tool %s version %u: tree is %zu bytes, over the cap of %u", tool, v,
				    len, ST_MAX_TREE_BYTES);
		goto out;
	}
	if (git_tree_lookup(&t, rr, git_commit_tree_id(c)) < 0)
		goto out;
	for (i = 0; i < git_tree_entrycount(t) && rc == 0; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
			rc = st_problem_add(l, "tool %s version %u: %s is not a regular file (mode %06o)", tool,
					    v, git_tree_entry_name(e), (unsigned)git_tree_entry_filemode(e));
		else if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
			 header(&len, &type, rodb, git_tree_entry_id(e)) == 0 && len > ST_MAX_FILE_BYTES)
			rc = st_problem_add(l, "tool %s version %u: %s is %zu bytes, over the cap of %u", tool,
					    v, git_tree_entry_name(e), len, ST_MAX_FILE_BYTES);
	}
out:
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

/* After a libgit2 failure of the walk: an allocation that failed (the
 * fetch process's memory limit) fails the pull; anything else ends the
 * walk here and the chain checks report what is missing. */
static int walk_failed(void)
{
	const git_error *e = git_error_last();

	if (e && e->klass == GIT_ERROR_NOMEMORY)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	git_error_clear();
	return 1;
}

/* A walk of the remote's history of in from its advertised tip, hiding
 * this host's tip when the remote has it: 0, 1 when there is nothing to
 * walk, or an error. */
static int walk_new(git_revwalk **out, tg_store *s, git_repository *rr, git_odb *rodb,
		    const tg_store_incoming *in)
{
	git_oid tip, local;
	char ref[128];

	*out = NULL;
	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, in->tool);
	if (git_oid_fromstr(&tip, in->adv_tip) < 0 || git_revwalk_new(out, rr) < 0 ||
	    git_revwalk_push(*out, &tip) < 0) {
		git_revwalk_free(*out);
		*out = NULL;
		return walk_failed();
	}
	if (git_reference_name_to_id(&local, s->repo, ref) == 0 && git_odb_exists(rodb, &local))
		(void)git_revwalk_hide(*out, &local);
	git_error_clear();
	return 0;
}

int st_local_precheck(tg_store *s, git_repository *rr, tg_store_fetched *f)
{
	tg_store_problem_list pl = { 0, NULL };
	git_odb *rodb = NULL;
	size_t i;
	int rc = 0;

	if ((rc = git_repository_odb(&rodb, rr)) < 0)
		return st_git_fail(rc, "remote object database");
	for (i = 0; i < f->n && rc == 0; i++) {
		tg_store_incoming *in = &f->items[i];
		git_revwalk *w = NULL;
		git_oid id;
		int wr = 0;
		if (!in->has_tip || (rc = walk_new(&w, s, rr, rodb, in)) != 0) {
			rc = rc > 0 ? 0 : rc;
			continue;
		}
		while (rc == 0 && pl.n == 0 && (wr = git_revwalk_next(&id, w)) == 0)
			rc = precheck_commit(&pl, rr, rodb, in->tool, &id);
		if (rc == 0 && pl.n == 0 && wr != GIT_ITEROVER && walk_failed() < 0)
			rc = TG_ERR_NOMEM;
		git_revwalk_free(w);
		if (rc == 0 && pl.n) {
			free(in->problem);
			in->problem = pl.items[0];
			in->relation = TG_STORE_IN_BAD;
			in->has_tip = in->has_active = 0;
			pl.n = 0;
		}
	}
	tg_error_clear();
	free(pl.items);
	git_odb_free(rodb);
	return rc;
}

typedef struct copier {
	git_odb *from, *to;
	const tg_store_fetch_limits *lim;
	const char *url;
	uint64_t objects, bytes;
} copier;

/* Copy one object unless the quarantine (or the store) has it. */
static int copy_one(copier *cp, const git_oid *id)
{
	git_odb_object *o = NULL;
	git_object_t type;
	git_oid out;
	size_t len;
	int rc;

	if (git_odb_exists(cp->to, id))
		return 0;
	if (header(&len, &type, cp->from, id) < 0)
		return tg_error_set(TG_ERR_INVALID, "fetch from %s: object %s missing", cp->url,
				    git_oid_tostr_s(id));
	if (len > ST_MAX_FILE_BYTES)
		return tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: object %s is %zu bytes, over the "
						  "cap of %u", cp->url, git_oid_tostr_s(id), len, ST_MAX_FILE_BYTES);
	cp->objects++;
	cp->bytes += len;
	if (cp->lim->max_objects && cp->objects > cp->lim->max_objects)
		return tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: the objects to fetch are more "
						  "than the cap of %llu", cp->url,
				    (unsigned long long)cp->lim->max_objects);
	if (cp->lim->max_bytes && cp->bytes > cp->lim->max_bytes)
		return tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: the objects to fetch are over the "
						  "cap of %llu bytes", cp->url,
				    (unsigned long long)cp->lim->max_bytes);
	if ((rc = git_odb_read(&o, cp->from, id)) < 0)
		return st_git_fail(rc, "fetch from %s: read %s", cp->url, git_oid_tostr_s(id));
	rc = git_odb_write(&out, cp->to, git_odb_object_data(o), git_odb_object_size(o),
			   git_odb_object_type(o));
	git_odb_object_free(o);
	if (rc < 0)
		return st_git_fail(rc, "fetch from %s: write %s", cp->url, git_oid_tostr_s(id));
	return 0;
}

/* One commit, its tree and the tree's blobs (a subtree or a gitlink is
 * not copied: the chain checks refuse the version). */
static int copy_commit(copier *cp, git_repository *rr, const git_oid *id)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	size_t i;
	int rc;

	if ((rc = copy_one(cp, id)) < 0)
		return rc;
	if (git_commit_lookup(&c, rr, id) < 0 || git_tree_lookup(&t, rr, git_commit_tree_id(c)) < 0) {
		git_commit_free(c);
		git_error_clear();
		return 0;
	}
	rc = copy_one(cp, git_commit_tree_id(c));
	for (i = 0; i < git_tree_entrycount(t) && rc == 0; i++)
		if (git_tree_entry_type(git_tree_entry_byindex(t, i)) == GIT_OBJECT_BLOB)
			rc = copy_one(cp, git_tree_entry_id(git_tree_entry_byindex(t, i)));
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

int st_local_copy(tg_store *q, tg_store *s, git_repository *rr, tg_store_fetched *f,
		  const tg_store_fetch_limits *lim, const char *url)
{
	copier cp = { NULL, NULL, lim, url, 0, 0 };
	size_t i;
	int rc;

	if ((rc = git_repository_odb(&cp.from, rr)) < 0 || (rc = git_repository_odb(&cp.to, q->repo)) < 0) {
		rc = st_git_fail(rc, "object database");
		goto out;
	}
	for (i = 0; i < f->n && rc == 0; i++) {
		tg_store_incoming *in = &f->items[i];
		git_reference *ref = NULL;
		git_revwalk *w = NULL;
		git_oid id, tip;
		char name[256];
		int wr = 0;
		if (!in->fetched || (rc = walk_new(&w, s, rr, cp.from, in)) != 0) {
			rc = rc > 0 ? 0 : rc;
			continue;
		}
		while (rc == 0 && (wr = git_revwalk_next(&id, w)) == 0)
			rc = copy_commit(&cp, rr, &id);
		if (rc == 0 && wr != GIT_ITEROVER && walk_failed() < 0)
			rc = TG_ERR_NOMEM;
		git_revwalk_free(w);
		if (rc < 0 || git_oid_fromstr(&tip, in->adv_tip) < 0 || !git_odb_exists(cp.to, &tip))
			continue;
		snprintf(name, sizeof(name), "%stools/%s", f->ns, in->tool);
		if ((rc = git_reference_create_matching(&ref, q->repo, name, &tip, 1, NULL,
							"toolgate: pull")) < 0)
			rc = st_git_fail(rc, "quarantine: set %s", name);
		git_reference_free(ref);
	}
	if (rc == 0)
		tg_error_clear();
out:
	git_odb_free(cp.to);
	git_odb_free(cp.from);
	return rc;
}
