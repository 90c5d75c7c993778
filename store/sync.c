/*
 * store/sync.c: the store's half of `toolgate pull` (docs/STORE.md,
 * "Replication with vetting"). Nothing a remote sends reaches refs/tools/
 * or refs/active/ here: tg_store_fetch_into fetches the remote's
 * refs/tools/<valid name> into a private namespace of a quarantine
 * repository (quarantine.c: the store's objects as an alternate; active
 * pointers are read from the advertisement), under caps (objects and bytes of the pack, checked by the
 * transfer progress callback, which aborts the download; advertised refs;
 * new versions per pull), checks each fetched chain (tree shape, regular
 * files only, blob sizes) and says how it relates to the local history.
 * Only when every cap and check passed are the objects of the accepted
 * histories packed into the store (a refused fetch leaves the store's
 * objects as they were); the quarantine is removed either way.
 * From a local remote (read in this process), blob sizes are checked in
 * the remote repository before anything is transferred.
 * The registry then re-vets every new version from the private refs,
 * records its own verdict in a local note (notes.c: refs/notes/toolgate-local,
 * never pushed, never fetched) and only then moves refs/tools/<name> with
 * tg_store_adopt (compare-and-swap). tg_store_rebase puts this host's
 * unpushed versions back on top of the remote's, renumbered.
 */
#include "store_internal.h"

#include <string.h>

typedef struct fetch_guard {
	const tg_store_fetch_limits *lim;
	char why[160];
} fetch_guard;

static int on_progress(const git_indexer_progress *p, void *payload)
{
	fetch_guard *g = payload;

	if (g->lim->max_objects && p->total_objects > g->lim->max_objects) {
		snprintf(g->why, sizeof(g->why), "the pack holds %u objects, more than the cap of %llu",
			 p->total_objects, (unsigned long long)g->lim->max_objects);
		return -1;
	}
	if (g->lim->max_bytes && p->received_bytes > g->lim->max_bytes) {
		snprintf(g->why, sizeof(g->why), "the pack is over the cap of %llu bytes",
			 (unsigned long long)g->lim->max_bytes);
		return -1;
	}
	return 0;
}

static int fetched_add(tg_store_fetched *f, const char *tool, tg_store_incoming **out)
{
	tg_store_incoming *ni;

	if (strlen(tool) >= sizeof(ni->tool))
		return tg_error_set(TG_ERR_INVALID, "tool name too long");
	ni = realloc(f->items, (f->n + 1) * sizeof(*ni));
	if (!ni)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	f->items = ni;
	*out = &ni[f->n++];
	memset(*out, 0, sizeof(**out));
	snprintf((*out)->tool, sizeof((*out)->tool), "%s", tool);
	return 0;
}

static tg_store_incoming *fetched_find(tg_store_fetched *f, const char *tool)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->items[i].tool, tool))
			return &f->items[i];
	return NULL;
}

/* Every entry of every commit of the chain from tip down to (excluding)
 * version stop: regular files (mode 100644 or 100755), each blob at most
 * the store's file cap (read from the object header, never inflated). */
static int check_shape(tg_store_problem_list *l, tg_store *s, const char *tool, const git_oid *tip,
		       unsigned stop)
{
	git_commit *c = NULL, *p = NULL;
	git_tree *t = NULL;
	git_odb *odb = NULL;
	unsigned v;
	size_t i;
	int rc;

	if ((rc = git_repository_odb(&odb, s->repo)) < 0)
		return st_git_fail(rc, "object database");
	if ((rc = git_commit_lookup(&c, s->repo, tip)) < 0) {
		rc = st_git_fail(rc, "tool %s: fetched tip", tool);
		goto out;
	}
	while (c && st_commit_version(&v, c) == 0 && v > stop) {
		if (git_commit_tree(&t, c) < 0) {
			rc = st_problem_add(l, "tool %s version %u: tree missing", tool, v);
			goto out;
		}
		for (i = 0; i < git_tree_entrycount(t); i++) {
			const git_tree_entry *e = git_tree_entry_byindex(t, i);
			git_filemode_t m = git_tree_entry_filemode(e);
			git_object_t type;
			size_t len = 0;
			if (m != GIT_FILEMODE_BLOB && m != GIT_FILEMODE_BLOB_EXECUTABLE) {
				rc = st_problem_add(l, "tool %s version %u: %s is not a regular file (mode %06o)",
						    tool, v, git_tree_entry_name(e), (unsigned)m);
				goto out;
			}
			if (git_odb_read_header(&len, &type, odb, git_tree_entry_id(e)) < 0 ||
			    type != GIT_OBJECT_BLOB) {
				rc = st_problem_add(l, "tool %s version %u: %s missing", tool, v,
						    git_tree_entry_name(e));
				goto out;
			}
			if (len > ST_MAX_FILE_BYTES) {
				rc = st_problem_add(l, "tool %s version %u: %s is %zu bytes, over the cap of %u",
						    tool, v, git_tree_entry_name(e), len, ST_MAX_FILE_BYTES);
				goto out;
			}
		}
		git_tree_free(t);
		t = NULL;
		if (git_commit_parentcount(c) == 0)
			break;
		if (git_commit_parent(&p, c, 0) < 0)
			break;
		git_commit_free(c);
		c = p;
		p = NULL;
	}
	rc = 0;
out:
	git_tree_free(t);
	git_commit_free(c);
	git_odb_free(odb);
	return rc;
}

/* A local remote (a path or file://) is read by libgit2's local
 * transport in this process, which packs what it sends (reading, and
 * delta-searching, every object whole): a 1 GiB blob would be inflated
 * here before any check of the fetched chain. So for a local remote each
 * blob a fetch would bring is checked first, from the remote repository's
 * object headers (never inflated), in every tree of every commit reachable
 * from the remote tip and not from this host's. NULL: not a local URL. */
static const char *local_path(const char *url)
{
	if (!strncmp(url, "file://", 7))
		return url + 7;
	return strstr(url, "://") ? NULL : url;
}

static int precheck_tree(tg_store_problem_list *l, git_repository *rr, git_odb *rodb,
			 const char *tool, unsigned v, const git_oid *id, const char *prefix,
			 int depth)
{
	git_tree *t = NULL;
	size_t i, before = l->n;
	int rc = 0;

	if (depth > 8 || git_tree_lookup(&t, rr, id) < 0)
		return 0; /* the fetch and the chain checks report it */
	for (i = 0; i < git_tree_entrycount(t) && l->n == before && rc == 0; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		git_object_t type;
		size_t len = 0;
		char sub[300];
		if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
			snprintf(sub, sizeof(sub), "%.200s%.64s/", prefix, git_tree_entry_name(e));
			rc = precheck_tree(l, rr, rodb, tool, v, git_tree_entry_id(e), sub, depth + 1);
		} else if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
			   git_odb_read_header(&len, &type, rodb, git_tree_entry_id(e)) == 0 &&
			   len > ST_MAX_FILE_BYTES) {
			rc = st_problem_add(l, "tool %s version %u: %s%s is %zu bytes, over the cap of %u",
					    tool, v, prefix, git_tree_entry_name(e), len, ST_MAX_FILE_BYTES);
		}
	}
	git_tree_free(t);
	return rc;
}

/* A tool whose history breaks the blob cap is refused before any transfer
 * (its refs are not fetched). */
static int precheck_local(tg_store *s, const char *path, tg_store_fetched *f)
{
	tg_store_problem_list pl = { 0, NULL };
	git_repository *rr = NULL;
	git_odb *rodb = NULL;
	size_t i;
	int rc = 0;

	if (git_repository_open_ext(&rr, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
	    git_repository_odb(&rodb, rr) < 0) {
		tg_error_clear();
		goto out; /* the fetch says why it cannot read it */
	}
	for (i = 0; i < f->n && rc == 0; i++) {
		tg_store_incoming *in = &f->items[i];
		git_revwalk *w = NULL;
		git_oid tip, local, id;
		char ref[128];
		if (!in->has_tip)
			continue;
		st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, in->tool);
		if (git_reference_name_to_id(&tip, rr, ref) < 0 || git_revwalk_new(&w, rr) < 0 ||
		    git_revwalk_push(w, &tip) < 0) {
			git_revwalk_free(w);
			continue;
		}
		if (git_reference_name_to_id(&local, s->repo, ref) == 0 && git_odb_exists(rodb, &local))
			(void)git_revwalk_hide(w, &local);
		while (rc == 0 && pl.n == 0 && git_revwalk_next(&id, w) == 0) {
			git_commit *c = NULL;
			unsigned v = 0;
			if (git_commit_lookup(&c, rr, &id) < 0)
				continue;
			if (st_commit_version(&v, c) < 0)
				v = 0;
			rc = precheck_tree(&pl, rr, rodb, in->tool, v, git_commit_tree_id(c), "", 0);
			git_commit_free(c);
		}
		git_revwalk_free(w);
		if (rc == 0 && pl.n) {
			free(in->problem);
			in->problem = strdup(pl.items[0]);
			in->relation = TG_STORE_IN_BAD;
			in->has_tip = in->has_active = 0;
			free(pl.items[0]);
			pl.n = 0;
		}
	}
	tg_error_clear();
out:
	free(pl.items);
	git_odb_free(rodb);
	git_repository_free(rr);
	return rc;
}

static unsigned version_of(tg_store *s, const git_oid *id)
{
	git_commit *c = NULL;
	unsigned v = 0;

	if (git_commit_lookup(&c, s->repo, id) == 0 && st_commit_version(&v, c) < 0)
		v = 0;
	git_commit_free(c);
	tg_error_clear();
	return v;
}

/* Relation of the fetched history of one tool to the local one: this
 * host's refs are read in the store s, the fetched refs and every object in
 * o (the quarantine, which sees the store's objects too; s when nothing was
 * fetched). */
static int classify(tg_store_problem_list *pl, tg_store *s, tg_store *o, tg_store_fetched *f,
		    tg_store_incoming *in)
{
	char tmp[256], ref[128], what[96];
	git_oid fetched, local, base;
	size_t before = pl->n;
	int rc;

	if (!in->fetched) {
		/* the remote's tip is this host's: nothing new, checked on arrival */
		st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, in->tool);
		if (git_reference_name_to_id(&local, s->repo, ref) < 0) {
			in->relation = TG_STORE_IN_BAD;
			return 0;
		}
		git_oid_tostr(in->remote_tip, sizeof(in->remote_tip), &local);
		memcpy(in->local_tip, in->remote_tip, sizeof(in->local_tip));
		in->local_version = in->remote_version = in->base_version = version_of(o, &local);
		in->relation = TG_STORE_IN_SAME;
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%stools/%s", f->ns, in->tool);
	if (git_reference_name_to_id(&fetched, o->repo, tmp) < 0) {
		in->relation = TG_STORE_IN_BAD;
		return 0;
	}
	git_oid_tostr(in->remote_tip, sizeof(in->remote_tip), &fetched);
	in->remote_version = version_of(o, &fetched);
	/* problems name the tool, not the private ref */
	snprintf(what, sizeof(what), "tool %s", in->tool);
	if ((rc = st_check_chain(pl, o, what, in->tool, &fetched)) < 0)
		return rc;
	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, in->tool);
	rc = git_reference_name_to_id(&local, s->repo, ref);
	if (rc < 0 && rc != GIT_ENOTFOUND)
		return st_git_fail(rc, "read %s", ref);
	if (rc == 0) {
		git_oid_tostr(in->local_tip, sizeof(in->local_tip), &local);
		in->local_version = version_of(o, &local);
	}
	if (pl->n == before) {
		if (rc == GIT_ENOTFOUND) {
			in->relation = TG_STORE_IN_NEW;
		} else if (git_oid_equal(&local, &fetched)) {
			in->relation = TG_STORE_IN_SAME;
			in->base_version = in->local_version;
		} else if (git_graph_descendant_of(o->repo, &fetched, &local) == 1) {
			in->relation = TG_STORE_IN_AHEAD;
			in->base_version = in->local_version;
		} else if (git_graph_descendant_of(o->repo, &local, &fetched) == 1) {
			in->relation = TG_STORE_IN_BEHIND;
			in->base_version = in->remote_version;
		} else {
			in->relation = TG_STORE_IN_DIVERGED;
			if (git_merge_base(&base, o->repo, &local, &fetched) == 0)
				in->base_version = version_of(o, &base);
		}
		if (in->relation == TG_STORE_IN_NEW || in->relation == TG_STORE_IN_AHEAD ||
		    in->relation == TG_STORE_IN_DIVERGED) {
			if ((rc = check_shape(pl, o, in->tool, &fetched, in->base_version)) < 0)
				return rc;
		}
	}
	if (pl->n != before) {
		in->relation = TG_STORE_IN_BAD;
		free(in->problem);
		in->problem = strdup(pl->items[before]);
	}
	return 0;
}

int tg_store_fetch_into(tg_store_fetched **out, tg_store *s, const char *url,
			const tg_store_fetch_limits *lim)
{
	tg_store_problem_list pl = { 0, NULL };
	tg_store_fetched *f = NULL;
	st_quarantine *q = NULL;
	tg_store *o = s; /* where the fetched objects are read */
	git_oid *tips = NULL, *hide = NULL;
	git_remote *remote = NULL;
	git_remote_callbacks cb;
	git_fetch_options fo;
	const git_remote_head **heads = NULL;
	fetch_guard g = { lim, "" };
	char **specs = NULL;
	size_t nspecs = 0, i, nheads = 0, nnew = 0, nadmit = 0, nobj = 0;
	git_strarray arr;
	char msg[160];
	int rc, connected = 0;

	*out = NULL;
	if ((rc = st_check_remote_url(url)) < 0)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	snprintf(f->ns, sizeof(f->ns), "%s%ld-%llu/", ST_FETCH_PREFIX, (long)getpid(),
		 (unsigned long long)tg_now_ms());
	snprintf(msg, sizeof(msg), "toolgate: pull from %.120s", url);
	if ((rc = st_open_remote(&remote, s, url)) < 0)
		goto fail;
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	if ((rc = git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL)) < 0) {
		rc = st_git_fail(rc, "connect to %s", url);
		goto fail;
	}
	connected = 1;
	if ((rc = git_remote_ls(&heads, &nheads, remote)) < 0) {
		rc = st_git_fail(rc, "list refs of %s", url);
		goto fail;
	}
	if (lim->max_refs && nheads > lim->max_refs) {
		rc = tg_error_set(TG_ERR_LIMIT, "remote %s: advertises %zu refs, more than the cap of %zu",
				  url, nheads, lim->max_refs);
		goto fail;
	}
	for (i = 0; i < nheads; i++) {
		const char *name = heads[i]->name;
		const size_t lt = strlen(ST_TOOLS_PREFIX), la = strlen(ST_ACTIVE_PREFIX);
		tg_store_incoming *in;
		int is_tool = !strncmp(name, ST_TOOLS_PREFIX, lt);
		int is_active = !strncmp(name, ST_ACTIVE_PREFIX, la);
		const char *tool = is_tool ? name + lt : is_active ? name + la : NULL;
		if (!strcmp(name, "HEAD"))
			continue;
		if (!tool || !tg_name_valid(tool)) {
			if ((rc = st_problem_add(&f->refused, "ref %.200s: refused (only refs/tools/<name> and "
							      "refs/active/<name> with a valid tool name)",
						 name)) < 0)
				goto fail;
			continue;
		}
		if (!(in = fetched_find(f, tool)) && (rc = fetched_add(f, tool, &in)) < 0)
			goto fail;
		if (is_tool) {
			in->has_tip = 1;
			git_oid_tostr(in->adv_tip, sizeof(in->adv_tip), &heads[i]->oid);
		} else {
			in->has_active = 1;
			git_oid_tostr(in->adv_active, sizeof(in->adv_active), &heads[i]->oid);
		}
	}
	git_remote_disconnect(remote);
	connected = 0;
	if (local_path(url) && (rc = precheck_local(s, local_path(url), f)) < 0)
		goto fail;
	specs = calloc(2 * f->n + 1, sizeof(*specs));
	if (!specs) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	/* only the histories that moved are fetched (a tip equal to this
	 * host's needs nothing); an active pointer is taken from the
	 * advertisement and must name a commit of the fetched history */
	for (i = 0; i < f->n; i++) {
		tg_store_incoming *in = &f->items[i];
		char ref[128];
		git_oid adv, local;
		if (!in->has_tip)
			continue;
		st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, in->tool);
		if (git_oid_fromstr(&adv, in->adv_tip) == 0 &&
		    git_reference_name_to_id(&local, s->repo, ref) == 0 && git_oid_equal(&adv, &local))
			continue;
		in->fetched = 1;
		if (asprintf(&specs[nspecs++], "+%s%s:%stools/%s", ST_TOOLS_PREFIX, in->tool, f->ns,
			     in->tool) < 0)
			specs[--nspecs] = NULL, rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	tg_error_clear();
	if (rc < 0)
		goto fail;
	if (nspecs) {
		/* into a quarantine: nothing of it enters the store unless every
		 * check below passes */
		git_remote_free(remote);
		remote = NULL;
		if ((rc = st_quarantine_open(&q, s)) < 0 || (rc = st_open_remote(&remote, &q->view, url)) < 0)
			goto fail;
		o = &q->view;
		git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
		fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
		fo.prune = GIT_FETCH_NO_PRUNE;
		fo.update_fetchhead = 0;
		fo.callbacks.transfer_progress = on_progress;
		fo.callbacks.payload = &g;
		arr.strings = specs;
		arr.count = nspecs;
		st_snapshot_drop(s);
		rc = git_remote_fetch(remote, &arr, &fo, msg);
		if (rc < 0) {
			if (g.why[0])
				rc = tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: %s", url, g.why);
			else
				rc = st_git_fail(rc, "fetch from %s", url);
			goto fail;
		}
	}
	for (i = 0; i < f->n; i++) {
		tg_store_incoming *in = &f->items[i];
		if (in->has_tip && in->remote_version > in->local_version)
			nnew += in->remote_version - in->local_version;
	}
	if (lim->max_versions && nnew > lim->max_versions) {
		rc = tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: %zu new versions, more than the cap "
						"of %u per pull", url, nnew, lim->max_versions);
		goto fail;
	}
	for (i = 0; i < f->n; i++) {
		tg_store_incoming *in = &f->items[i];
		git_oid a, tip;
		if (in->has_tip && (rc = classify(&pl, s, o, f, in)) < 0)
			goto fail;
		if (!in->has_tip && !in->relation)
			in->relation = TG_STORE_IN_SAME;
		if (!in->has_active || git_oid_fromstr(&a, in->adv_active) < 0)
			continue;
		/* the remote's pointer must name a commit of the remote's history */
		if (in->has_tip && git_oid_fromstr(&tip, in->remote_tip) == 0 &&
		    st_chain_contains(o, &tip, &a) == 1) {
			git_oid_tostr(in->remote_active, sizeof(in->remote_active), &a);
			in->remote_active_version = version_of(o, &a);
		} else if ((rc = st_problem_add(&f->refused, "ref refs/active/%s: refused (not a version of "
							     "the remote's refs/tools/%s)",
						in->tool, in->tool)) < 0) {
			goto fail;
		}
	}
	/* re-count with the versions the chains really hold */
	nnew = 0;
	for (i = 0; i < f->n; i++) {
		tg_store_incoming *in = &f->items[i];
		if (in->relation == TG_STORE_IN_NEW || in->relation == TG_STORE_IN_AHEAD ||
		    in->relation == TG_STORE_IN_DIVERGED)
			nnew += in->remote_version - in->base_version;
	}
	if (lim->max_versions && nnew > lim->max_versions) {
		rc = tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: %zu new versions, more than the cap "
						"of %u per pull", url, nnew, lim->max_versions);
		goto fail;
	}
	/* every check passed: the objects of the accepted histories (new,
	 * ahead or diverged; not a refused one) enter the store */
	if (q) {
		tips = calloc(f->n + 1, sizeof(*tips));
		hide = calloc(f->n + 1, sizeof(*hide));
		if (!tips || !hide) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto fail;
		}
		for (i = 0; i < f->n; i++) {
			tg_store_incoming *in = &f->items[i];
			if (!in->fetched || (in->relation != TG_STORE_IN_NEW && in->relation != TG_STORE_IN_AHEAD &&
					     in->relation != TG_STORE_IN_DIVERGED))
				continue;
			if (git_oid_fromstr(&tips[nadmit], in->remote_tip) < 0 ||
			    (in->local_tip[0] && git_oid_fromstr(&hide[nadmit], in->local_tip) < 0)) {
				rc = tg_error_set(TG_ERR_INTERNAL, "tool %s: bad commit id", in->tool);
				goto fail;
			}
			nadmit++;
		}
		if ((rc = st_quarantine_admit(&nobj, q, s, tips, hide, nadmit)) < 0)
			goto fail;
	}
	rc = 0;
	*out = f;
	f = NULL;
	goto out;
fail:
	if (f)
		tg_store_fetched_free(s, f);
out:
	if (connected)
		git_remote_disconnect(remote);
	git_remote_free(remote);
	st_quarantine_free(q);
	free(tips);
	free(hide);
	for (i = 0; i < nspecs; i++)
		free(specs[i]);
	free(specs);
	for (i = 0; i < pl.n; i++)
		free(pl.items[i]);
	free(pl.items);
	return rc;
}

void tg_store_fetched_free(tg_store *s, tg_store_fetched *f)
{
	size_t i;

	/* the private refs lived in the quarantine, gone with it */
	if (!f)
		return;
	st_snapshot_drop(s);
	for (i = 0; i < f->n; i++)
		free(f->items[i].problem);
	free(f->items);
	for (i = 0; i < f->refused.n; i++)
		free(f->refused.items[i]);
	free(f->refused.items);
	free(f);
}

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
