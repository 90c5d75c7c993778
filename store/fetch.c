/*
 * store/fetch.c: the store's half of `toolgate pull` (docs/STORE.md,
 * "Replication with vetting" and "Bounds of a pull"). Nothing a remote
 * sends reaches refs/tools/ or refs/active/ here, and nothing of the remote
 * is read in this process: tg_store_fetch_into runs the whole exchange in a
 * child process under an address-space and a time limit (bounded.c) and
 * keeps only its answer. In the child:
 *  - the remote's refs are listed (a local remote by name and target only,
 *    fetch_local.c; others through libgit2's smart transports) and only
 *    refs/tools/<valid name> and refs/active/<valid name> are taken, the
 *    others refused by name (their objects are never asked for or read);
 *  - a local remote's accepted histories are checked from object headers
 *    and copied object by object; from a git://, ssh:// or https:// remote
 *    libgit2 fetches exactly the accepted refs, under caps on the pack's
 *    objects and bytes checked by the transfer progress callback (which
 *    aborts the download), into a private namespace of a quarantine
 *    repository (quarantine.c: the store's objects as an alternate; active
 *    pointers are read from the advertisement);
 *  - each fetched chain is checked (tree shape, regular files only, commit,
 *    tree and blob sizes from object headers), related to the local history
 *    and counted against the cap on new versions per pull;
 *  - the objects of the accepted histories are packed inside the quarantine.
 * The child answers with one frame per tool, per refusal and the pack's
 * name; only when it finished does this process move that pack into the
 * store (a refused, failed or killed fetch leaves the store's objects as
 * they were); the quarantine is removed either way.
 * The registry then re-vets every new version, records its own verdict in
 * a local note (notes.c: refs/notes/toolgate-local, never pushed, never
 * fetched) and only then moves refs/tools/<name> with tg_store_adopt
 * (compare-and-swap, sync.c).
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

/* Every commit of the chain from tip down to (excluding) version stop:
 * the commit and its tree under their size caps, every entry a regular
 * file (mode 100644 or 100755), each blob at most the store's file cap
 * (sizes read from object headers, never inflated). */
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
		size_t clen = 0, tlen = 0;
		git_object_t ct, tt;
		/* what the registry later reads in the parent stays small */
		if (git_odb_read_header(&clen, &ct, odb, git_commit_id(c)) < 0 ||
		    git_odb_read_header(&tlen, &tt, odb, git_commit_tree_id(c)) < 0 ||
		    clen > ST_MAX_COMMIT_BYTES || tlen > ST_MAX_TREE_BYTES) {
			rc = st_problem_add(l, "tool %s version %u: commit of %zu bytes or tree of %zu bytes, "
					       "over the caps of %u and %u", tool, v, clen, tlen,
					    ST_MAX_COMMIT_BYTES, ST_MAX_TREE_BYTES);
			goto out;
		}
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
/* One pull's exchange; f is filled by the child, then (from its frames) by
 * the parent. */
typedef struct fetch_job {
	tg_store *s;
	st_quarantine *q;
	const char *url;
	const tg_store_fetch_limits *lim;
	tg_store_fetched *f;
	git_repository *rr; /* a local remote, opened in the child */
	char pack[41];      /* the pack of the accepted histories, in the quarantine */
	size_t cap_items;   /* the parent takes no more tools than this */
} fetch_job;

/* The refs of a git://, ssh:// or https:// remote. */
static int list_smart(fetch_job *j)
{
	const git_remote_head **heads = NULL;
	git_remote *remote = NULL;
	git_remote_callbacks cb;
	size_t i, nheads = 0;
	int rc;

	if ((rc = st_open_remote(&remote, j->s, j->url)) < 0)
		return rc;
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	if ((rc = git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL)) < 0) {
		rc = st_git_fail(rc, "connect to %s", j->url);
		goto out;
	}
	if ((rc = git_remote_ls(&heads, &nheads, remote)) < 0) {
		rc = st_git_fail(rc, "list refs of %s", j->url);
	} else if (j->lim->max_refs && nheads > j->lim->max_refs) {
		rc = tg_error_set(TG_ERR_LIMIT, "remote %s: advertises %zu refs, more than the cap of %zu",
				  j->url, nheads, j->lim->max_refs);
	}
	for (i = 0; rc == 0 && i < nheads; i++)
		rc = st_fetch_take_ref(j->f, heads[i]->name, &heads[i]->oid);
	git_remote_disconnect(remote);
out:
	git_remote_free(remote);
	return rc;
}

/* Mark the histories that moved (a tip equal to this host's needs nothing;
 * an active pointer is taken from the advertisement and must name a commit
 * of the fetched history): how many. */
static size_t plan(fetch_job *j)
{
	size_t i, n = 0;

	for (i = 0; i < j->f->n; i++) {
		tg_store_incoming *in = &j->f->items[i];
		char ref[128];
		git_oid adv, local;
		if (!in->has_tip)
			continue;
		st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, in->tool);
		if (git_oid_fromstr(&adv, in->adv_tip) == 0 &&
		    git_reference_name_to_id(&local, j->s->repo, ref) == 0 && git_oid_equal(&adv, &local))
			continue;
		in->fetched = 1;
		n++;
	}
	tg_error_clear();
	return n;
}

/* Exactly the accepted refs/tools/<name>, into the quarantine's private
 * namespace, under the caps on the pack. */
static int fetch_smart(fetch_job *j, size_t n)
{
	fetch_guard g = { j->lim, "" };
	git_remote *remote = NULL;
	git_fetch_options fo;
	git_strarray arr = { NULL, 0 };
	char msg[160];
	size_t i;
	int rc = 0;

	if (!(arr.strings = calloc(n + j->f->nreview + 1, sizeof(*arr.strings))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < j->f->nreview && rc == 0; i++)
		if (asprintf(&arr.strings[arr.count++], "+%s%s:%sreview/%s", ST_REVIEW_REMOTE_PREFIX,
			     j->f->review[i].id, j->f->ns, j->f->review[i].id) < 0)
			arr.strings[--arr.count] = NULL, rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < j->f->n && rc == 0; i++) {
		const tg_store_incoming *in = &j->f->items[i];
		if (in->fetched && asprintf(&arr.strings[arr.count++], "+%s%s:%stools/%s", ST_TOOLS_PREFIX,
					    in->tool, j->f->ns, in->tool) < 0)
			arr.strings[--arr.count] = NULL, rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc < 0 || (rc = st_open_remote(&remote, &j->q->view, j->url)) < 0)
		goto out;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.update_fetchhead = 0;
	fo.callbacks.transfer_progress = on_progress;
	fo.callbacks.payload = &g;
	snprintf(msg, sizeof(msg), "toolgate: pull from %.120s", j->url);
	if ((rc = git_remote_fetch(remote, &arr, &fo, msg)) < 0) {
		if (g.why[0])
			rc = tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: %s", j->url, g.why);
		else
			rc = st_git_fail(rc, "fetch from %s", j->url);
	}
out:
	git_remote_free(remote);
	for (i = 0; i < arr.count; i++)
		free(arr.strings[i]);
	free(arr.strings);
	return rc;
}

/* Every tool related to the local history (classify), its active pointer
 * checked, and the new versions counted against the cap. */
static int classify_all(fetch_job *j)
{
	tg_store_problem_list pl = { 0, NULL };
	tg_store *o = &j->q->view; /* the quarantine sees the store's objects too */
	tg_store_fetched *f = j->f;
	size_t i, nnew = 0;
	int rc = 0;

	for (i = 0; i < f->n && rc == 0; i++) {
		tg_store_incoming *in = &f->items[i];
		git_oid a, tip;
		if (in->has_tip && (rc = classify(&pl, j->s, o, f, in)) < 0)
			break;
		if (!in->has_tip && !in->relation)
			in->relation = TG_STORE_IN_SAME;
		if (!in->has_active || git_oid_fromstr(&a, in->adv_active) < 0)
			continue;
		/* the remote's pointer must name a commit of the remote's history */
		if (in->has_tip && git_oid_fromstr(&tip, in->remote_tip) == 0 &&
		    st_chain_contains(o, &tip, &a) == 1) {
			git_oid_tostr(in->remote_active, sizeof(in->remote_active), &a);
			in->remote_active_version = version_of(o, &a);
		} else {
			rc = st_problem_add(&f->refused, "ref refs/active/%s: refused (not a version of the "
							 "remote's refs/tools/%s)", in->tool, in->tool);
		}
	}
	for (i = 0; i < pl.n; i++)
		free(pl.items[i]);
	free(pl.items);
	if (rc < 0)
		return rc;
	for (i = 0; i < f->n; i++) {
		const tg_store_incoming *in = &f->items[i];
		if (in->relation == TG_STORE_IN_NEW || in->relation == TG_STORE_IN_AHEAD ||
		    in->relation == TG_STORE_IN_DIVERGED)
			nnew += in->remote_version - in->base_version;
	}
	if (j->lim->max_versions && nnew > j->lim->max_versions)
		return tg_error_set(TG_ERR_LIMIT, "fetch from %s refused: %zu new versions, more than the "
						  "cap of %u per pull", j->url, nnew, j->lim->max_versions);
	return 0;
}

/* The objects of the accepted histories (new, ahead or diverged; not a
 * refused one), packed inside the quarantine. */
static int pack_accepted(fetch_job *j)
{
	git_oid *tips = calloc(j->f->n + 1, sizeof(*tips)), *hide = calloc(j->f->n + 1, sizeof(*hide));
	size_t i, n = 0, nobj = 0;
	int rc = 0;

	if (!tips || !hide)
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < j->f->n && rc == 0; i++) {
		const tg_store_incoming *in = &j->f->items[i];
		if (!in->fetched || (in->relation != TG_STORE_IN_NEW && in->relation != TG_STORE_IN_AHEAD &&
				     in->relation != TG_STORE_IN_DIVERGED))
			continue;
		if (git_oid_fromstr(&tips[n], in->remote_tip) < 0 ||
		    (in->local_tip[0] && git_oid_fromstr(&hide[n], in->local_tip) < 0))
			rc = tg_error_set(TG_ERR_INTERNAL, "tool %s: bad commit id", in->tool);
		n++;
	}
	if (rc == 0)
		rc = st_quarantine_pack(j->pack, &nobj, j->q, tips, hide, n);
	free(tips);
	free(hide);
	return rc;
}

/* The answer: one frame per tool ('I': the record, then its problem), per
 * refused ref ('R'), per signed decision line of the remote's review notes
 * ('N'), and the pack's name ('P'). */
static int send_answer(int fd, fetch_job *j)
{
	char buf[sizeof(tg_store_incoming) + 4096];
	size_t i, n;
	int rc = 0;

	for (i = 0; i < j->f->n && rc == 0; i++) {
		const tg_store_incoming *in = &j->f->items[i];
		memcpy(buf, in, sizeof(*in));
		n = sizeof(*in);
		if (in->problem)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%.4000s", in->problem) + 1;
		rc = st_frame_send(fd, 'I', buf, n);
	}
	for (i = 0; i < j->f->refused.n && rc == 0; i++)
		rc = st_frame_send(fd, 'R', j->f->refused.items[i], strnlen(j->f->refused.items[i], 4000));
	for (i = 0; i < j->f->ndecisions && rc == 0; i++) {
		const tg_store_decision *d = &j->f->decisions[i];
		n = (size_t)snprintf(buf, sizeof(buf), "%s %s %s", d->commit, d->from, d->line);
		rc = st_frame_send(fd, 'N', buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
	}
	if (rc == 0 && j->pack[0])
		rc = st_frame_send(fd, 'P', j->pack, 40);
	return rc;
}

/* The whole exchange, in the bounded child. */
static int fetch_child(int fd, void *arg)
{
	fetch_job *j = arg;
	int local = st_local_path(j->url) != NULL;
	size_t n;
	int rc;

	if (local) {
		if ((rc = st_local_open(&j->rr, j->url)) < 0 ||
		    (rc = st_local_list(j->f, j->rr, j->url, j->lim->max_refs)) < 0 ||
		    (rc = st_local_precheck(j->s, j->rr, j->f)) < 0)
			return rc;
	} else if ((rc = list_smart(j)) < 0) {
		return rc;
	}
	if ((n = plan(j)) > 0 || (!local && j->f->nreview)) {
		rc = local ? st_local_copy(&j->q->view, j->s, j->rr, j->f, j->lim, j->url) : fetch_smart(j, n);
		if (rc < 0)
			return rc;
	}
	if ((rc = classify_all(j)) < 0 || (rc = pack_accepted(j)) < 0)
		return rc;
	if (local) {
		rc = st_review_read(j->f, j->rr, ST_REVIEW_REMOTE_PREFIX);
	} else {
		char prefix[128];
		snprintf(prefix, sizeof(prefix), "%sreview/", j->f->ns);
		rc = st_review_read(j->f, j->q->view.repo, prefix);
	}
	if (rc < 0)
		return rc;
	return send_answer(fd, j);
}

/* An 'N' frame, a signed decision line of a review note: "COMMIT FROM
 * LINE" (the child's answer, checked again). */
static int on_decision(tg_store_fetched *f, const char *p, size_t n)
{
	tg_store_decision *nd;

	if (f->ndecisions >= TG_STORE_MAX_DECISIONS || n < 59 || n > 58 + ST_MAX_REVIEW_LINE ||
	    p[40] != ' ' || p[57] != ' ' || strspn(p, "0123456789abcdef") != 40)
		return tg_error_set(TG_ERR_INTERNAL, "fetch: unexpected answer from the fetch process");
	if (!(nd = realloc(f->decisions, (f->ndecisions + 1) * sizeof(*nd))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	f->decisions = nd;
	nd = &nd[f->ndecisions];
	memcpy(nd->commit, p, 40);
	nd->commit[40] = '\0';
	memcpy(nd->from, p + 41, 16);
	nd->from[16] = '\0';
	if (!(nd->line = strndup(p + 58, n - 58)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	f->ndecisions++;
	return 0;
}

/* In this process: one frame of the child's answer. */
static int on_frame(void *arg, int type, const char *p, size_t n)
{
	fetch_job *j = arg;
	tg_store_incoming *in;
	int rc;

	if (type == 'R')
		return st_problem_add(&j->f->refused, "%s", p);
	if (type == 'N')
		return on_decision(j->f, p, n);
	if (type == 'P' && n == 40) {
		memcpy(j->pack, p, 40);
		j->pack[40] = '\0';
		return 0;
	}
	if (type != 'I' || n < sizeof(*in) || j->f->n >= j->cap_items)
		return tg_error_set(TG_ERR_INTERNAL, "fetch: unexpected answer from the fetch process");
	if ((rc = st_fetched_add(j->f, "", &in)) < 0)
		return rc;
	memcpy(in, p, sizeof(*in));
	in->tool[sizeof(in->tool) - 1] = '\0';
	in->problem = n > sizeof(*in) ? strdup(p + sizeof(*in)) : NULL;
	if (n > sizeof(*in) && !in->problem)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

static unsigned pull_seconds(void)
{
	const char *e = getenv("TG_PULL_MAX_SECONDS");
	unsigned long v = e ? strtoul(e, NULL, 10) : 0;

	return v > 0 && v < ST_PULL_SECONDS ? (unsigned)v : ST_PULL_SECONDS;
}

int tg_store_fetch_into(tg_store_fetched **out, tg_store *s, const char *url,
			const tg_store_fetch_limits *lim)
{
	fetch_job j;
	st_bounded b;
	char what[160];
	int rc;

	*out = NULL;
	if ((rc = st_check_remote_url(url)) < 0)
		return rc;
	memset(&j, 0, sizeof(j));
	j.s = s;
	j.url = url;
	j.lim = lim;
	j.cap_items = lim->max_refs ? lim->max_refs : (size_t)1 << 20;
	if (!(j.f = calloc(1, sizeof(*j.f))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	snprintf(j.f->ns, sizeof(j.f->ns), "%s%ld-%llu/", ST_FETCH_PREFIX, (long)getpid(),
		 (unsigned long long)tg_now_ms());
	st_snapshot_drop(s);
	if ((rc = st_quarantine_open(&j.q, s)) < 0)
		goto out;
	b.mem_bytes = ST_PULL_MEM_BYTES;
	b.seconds = pull_seconds();
	b.child = fetch_child;
	b.frame = on_frame;
	b.arg = &j;
	snprintf(what, sizeof(what), "fetch from %.120s", url);
	/* every check passed in the child: its pack enters the store */
	if ((rc = st_bounded_run(&b, what)) == 0)
		rc = st_quarantine_move(j.q, s, j.pack);
out:
	st_quarantine_free(j.q);
	if (rc < 0) {
		tg_store_fetched_free(s, j.f);
		return rc;
	}
	*out = j.f;
	return 0;
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
	for (i = 0; i < f->ndecisions; i++)
		free(f->decisions[i].line);
	free(f->decisions);
	free(f);
}
