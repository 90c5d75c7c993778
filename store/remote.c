/*
 * store/remote.c: replication to and from another git repository named by a
 * local path or a file:// URL.
 *
 * push sends every refs/tools/<name> (fast-forward only: libgit2 refuses a
 * non-fast-forward update, so diverged histories are reported, never
 * overwritten) and every refs/active/<name> (forced: a rollback moves the
 * pointer backwards). libgit2 rejects glob push refspecs, so the list is
 * built from the local refs, leaving out those the remote advertises at
 * the same value (a push where nothing changed sends nothing).
 *
 * fetch lists the remote's refs, keeps only refs/tools/<valid name> and
 * refs/active/<valid name>, and fetches them into a private namespace
 * (refs/toolgate-fetch/<pid>-<ms>/) of a quarantine (quarantine.c). Nothing
 * reaches the store before its chain passes the same check as
 * tg_store_verify and it fast-forwards the local history: then its objects
 * are admitted into the store and refs/tools/ moves by compare-and-swap; an
 * active pointer is taken only when it names a commit of the (updated)
 * local history. The quarantine is removed at the end. A tool that fails is
 * skipped and reported (TG_ERR_CONFLICT); the others are still taken.
 */
#include "store_internal.h"

#include <string.h>

#define ST_MAX_REMOTE_REFS 1000000u

int st_check_remote_url(const char *url)
{
	const char *colon, *slash;
	int rc;

	if ((rc = st_check_line("remote", url, 4096, 0)) < 0)
		return rc;
	if (strstr(url, "://")) {
		static const char *const schemes[] = { "file://", "git://", "ssh://", "https://" };
		size_t i;
		for (i = 0; i < TG_ARRAY_SIZE(schemes); i++)
			if (!strncmp(url, schemes[i], strlen(schemes[i])) && url[strlen(schemes[i])])
				return 0;
		return tg_error_set(TG_ERR_INVALID, "remote %s: only local paths and file://, git://, "
					"ssh:// or https:// URLs", url);
	}
	colon = strchr(url, ':');
	slash = strchr(url, '/');
	if (colon && (!slash || colon < slash))
		return tg_error_set(TG_ERR_INVALID, "remote %s: only local paths and file://, git://, ssh:// or https:// URLs "
				    "(no host:path)", url);
	return 0;
}

int tg_store_check_url(const char *url)
{
	return st_check_remote_url(url);
}

/* An anonymous remote for url. url.<base>.insteadOf rewriting is skipped:
 * the URL means what it says (and libgit2 1.5.1 leaks pcre2 match data
 * while applying it). */
int st_open_remote(git_remote **out, tg_store *s, const char *url)
{
	git_remote_create_options o;
	int rc;

	git_remote_create_options_init(&o, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	o.repository = s->repo;
	o.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if ((rc = git_remote_create_with_opts(out, url, &o)) < 0)
		return st_git_fail(rc, "remote %s", url);
	return 0;
}

typedef struct strvec {
	char **v;
	size_t n, cap;
} strvec;

static void strvec_free(strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

static int strvec_addf(strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int strvec_addf(strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;
	int n;

	if (sv->n == sv->cap) {
		size_t nc = sv->cap ? sv->cap * 2 : 32;
		char **nv = realloc(sv->v, nc * sizeof(*nv));
		if (!nv)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		sv->v = nv;
		sv->cap = nc;
	}
	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	sv->v[sv->n++] = p;
	return 0;
}

/* The tool names of refs under prefix (valid names only). */
static int local_names(strvec *out, tg_store *s, const char *prefix)
{
	git_reference_iterator *it = NULL;
	char glob[64];
	const char *name;
	int rc, grc;

	snprintf(glob, sizeof(glob), "%s*", prefix);
	if ((rc = git_reference_iterator_glob_new(&it, s->repo, glob)) < 0)
		return st_git_fail(rc, "list refs");
	rc = 0;
	while ((grc = git_reference_next_name(&name, it)) == 0) {
		const char *tool = name + strlen(prefix);
		if (strncmp(name, prefix, strlen(prefix)) || !tg_name_valid(tool))
			continue;
		if ((rc = strvec_addf(out, "%s", tool)) < 0)
			break;
	}
	git_reference_iterator_free(it);
	if (rc < 0)
		return rc;
	if (grc != GIT_ITEROVER)
		return st_git_fail(grc, "list refs");
	return 0;
}

typedef struct push_state {
	char first_reject[512];
	size_t rejected;
} push_state;

static int on_push_update(const char *refname, const char *status, void *payload)
{
	push_state *ps = payload;

	if (status) {
		if (!ps->rejected++)
			snprintf(ps->first_reject, sizeof(ps->first_reject), "%s: %s", refname, status);
	}
	return 0;
}

/* The remote's refs as (name, id), sorted by name, to leave out of a push
 * the refs that already hold this host's value. */
typedef struct adv_ref {
	const char *name;
	git_oid id;
} adv_ref;

static int adv_cmp(const void *a, const void *b)
{
	return strcmp(((const adv_ref *)a)->name, ((const adv_ref *)b)->name);
}

/* Does the remote already have ref = this host's ref? */
static int up_to_date(tg_store *s, const adv_ref *adv, size_t n, const char *ref)
{
	adv_ref key = { ref, { { 0 } } };
	const adv_ref *a = n ? bsearch(&key, adv, n, sizeof(*adv), adv_cmp) : NULL;
	git_oid local;

	return a && git_reference_name_to_id(&local, s->repo, ref) == 0 && git_oid_equal(&local, &a->id);
}

int tg_store_push(tg_store *s, const char *url)
{
	strvec tools = { 0 }, active = { 0 }, specs = { 0 };
	git_remote *remote = NULL;
	const git_remote_head **heads = NULL;
	git_remote_callbacks cb;
	adv_ref *adv = NULL;
	size_t nheads = 0;
	char ref[128];
	git_push_options po;
	git_strarray arr;
	push_state ps = { "", 0 };
	git_oid rid;
	size_t i;
	int rc;

	if ((rc = st_check_remote_url(url)) < 0)
		return rc;
	if ((rc = local_names(&tools, s, ST_TOOLS_PREFIX)) < 0 || (rc = local_names(&active, s, ST_ACTIVE_PREFIX)) < 0)
		goto out;
	if (!tools.n && !active.n && !s->review_id[0])
		goto out;
	if ((rc = st_open_remote(&remote, s, url)) < 0)
		goto out;
	/* only the refs the remote does not already hold at this host's value
	 * (a push where nothing changed sends nothing) */
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	if ((rc = git_remote_connect(remote, GIT_DIRECTION_PUSH, &cb, NULL, NULL)) < 0 ||
	    (rc = git_remote_ls(&heads, &nheads, remote)) < 0) {
		rc = st_git_fail(rc, "connect to %s", url);
		goto out;
	}
	adv = calloc(nheads + 1, sizeof(*adv));
	if (!adv) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nheads; i++) {
		adv[i].name = heads[i]->name;
		git_oid_cpy(&adv[i].id, &heads[i]->oid);
	}
	qsort(adv, nheads, sizeof(*adv), adv_cmp);
	for (i = 0; i < tools.n && rc == 0; i++) {
		st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, tools.v[i]);
		if (!up_to_date(s, adv, nheads, ref))
			rc = strvec_addf(&specs, "%s:%s", ref, ref);
	}
	for (i = 0; i < active.n && rc == 0; i++) {
		st_ref_name(ref, sizeof(ref), ST_ACTIVE_PREFIX, active.v[i]);
		if (!up_to_date(s, adv, nheads, ref))
			rc = strvec_addf(&specs, "+%s:%s", ref, ref);
	}
	/* this host's review notes (review_carry.c), forced: only it writes them */
	if (rc == 0 && s->review_id[0] && git_reference_name_to_id(&rid, s->repo, ST_REVIEW_NOTES_REF) == 0) {
		snprintf(ref, sizeof(ref), "%s%s", ST_REVIEW_REMOTE_PREFIX, s->review_id);
		adv_ref key = { ref, { { 0 } } };
		const adv_ref *a = nheads ? bsearch(&key, adv, nheads, sizeof(*adv), adv_cmp) : NULL;
		if (!a || !git_oid_equal(&a->id, &rid))
			rc = strvec_addf(&specs, "+%s:%s", ST_REVIEW_NOTES_REF, ref);
	}
	tg_error_clear();
	git_remote_disconnect(remote);
	if (rc < 0 || !specs.n)
		goto out;
	git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
	po.callbacks.push_update_reference = on_push_update;
	po.callbacks.payload = &ps;
	arr.strings = specs.v;
	arr.count = specs.n;
	rc = git_remote_push(remote, &arr, &po);
	if (rc == GIT_ENONFASTFORWARD) {
		rc = st_git_fail(GIT_EMODIFIED, "push to %s (fetch first)", url);
		goto out;
	}
	if (rc < 0) {
		rc = st_git_fail(rc, "push to %s", url);
		goto out;
	}
	if (ps.rejected) {
		rc = tg_error_set(TG_ERR_CONFLICT, "push to %s: %zu ref(s) rejected, first %s", url, ps.rejected,
				  ps.first_reject);
		goto out;
	}
	rc = 0;
out:
	free(adv);
	git_remote_free(remote);
	strvec_free(&tools);
	strvec_free(&active);
	strvec_free(&specs);
	return rc;
}

/* Compare-and-swap name from old (NULL = must be absent) to new. */
static int cas_ref(tg_store *s, const char *name, const git_oid *new_id, const git_oid *old_id, const char *msg)
{
	unsigned attempt;
	uint64_t start = tg_now_ms();
	int rc;

	for (attempt = 0;; attempt++) {
		rc = st_ref_cas(s, name, new_id, old_id, msg);
		if (rc == 0)
			return 0;
		if (rc != GIT_ELOCKED || !st_may_retry(attempt, start))
			return st_git_fail(rc, "update %s", name);
		if (attempt % 8 == 7)
			st_clear_stale_locks(s);
		st_backoff(attempt);
	}
}

/* A fetched history that passed its checks, to be taken. */
typedef struct take {
	const char *tool;
	git_oid fetched, local;
	int has_local;
} take;

/* Check the fetched history of one tool, read in the quarantine o (which
 * sees the store's objects too), against the store's ref. Adds a problem
 * line when refused; *ok = 1 when it is to be taken. */
static int check_tool(tg_store_problem_list *pl, take *t, int *ok, tg_store *s, tg_store *o,
		      const char *ns, const char *tool)
{
	char tmp[256], ref[128], what[160];
	size_t before = pl->n;
	int rc;

	*ok = 0;
	t->tool = tool;
	snprintf(tmp, sizeof(tmp), "%stools/%s", ns, tool);
	if (git_reference_name_to_id(&t->fetched, o->repo, tmp) < 0)
		return 0; /* the remote dropped it between listing and fetching */
	snprintf(what, sizeof(what), "fetched %s%s", ST_TOOLS_PREFIX, tool);
	if ((rc = st_check_chain(pl, o, what, tool, &t->fetched)) < 0)
		return rc;
	if (pl->n != before)
		return 0;
	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, tool);
	rc = git_reference_name_to_id(&t->local, s->repo, ref);
	if (rc == GIT_ENOTFOUND) {
		t->has_local = 0;
		*ok = 1;
		return 0;
	}
	if (rc < 0)
		return st_git_fail(rc, "read %s", ref);
	t->has_local = 1;
	if (git_oid_equal(&t->local, &t->fetched) ||
	    git_graph_descendant_of(o->repo, &t->local, &t->fetched) == 1)
		return 0; /* same, or the local history is ahead */
	if (git_graph_descendant_of(o->repo, &t->fetched, &t->local) != 1)
		return st_problem_add(pl, "tool %s: local and remote histories have diverged", tool);
	*ok = 1;
	return 0;
}

/* Move the store's ref to a checked history (its objects are in the store). */
static int take_tool(tg_store_problem_list *pl, tg_store *s, const take *t, const char *msg)
{
	char ref[128];

	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, t->tool);
	if (cas_ref(s, ref, &t->fetched, t->has_local ? &t->local : NULL, msg) < 0)
		return st_problem_add(pl, "tool %s: %s", t->tool, tg_error_last()->message);
	return 0;
}

static int take_active(tg_store_problem_list *pl, tg_store *s, tg_store *o, const char *ns,
		       const char *tool, const char *msg)
{
	char tmp[256], ref[128], tref[128];
	git_oid fetched, tip, cur;
	int rc;

	snprintf(tmp, sizeof(tmp), "%sactive/%s", ns, tool);
	if (git_reference_name_to_id(&fetched, o->repo, tmp) < 0)
		return 0;
	st_ref_name(tref, sizeof(tref), ST_TOOLS_PREFIX, tool);
	/* read in the store: only what was taken is there */
	if (git_reference_name_to_id(&tip, s->repo, tref) < 0 || st_chain_contains(s, &tip, &fetched) != 1)
		return st_problem_add(pl, "tool %s: the remote's active version is not in the local history",
				      tool);
	st_ref_name(ref, sizeof(ref), ST_ACTIVE_PREFIX, tool);
	rc = git_reference_name_to_id(&cur, s->repo, ref);
	if (rc == 0 && git_oid_equal(&cur, &fetched))
		return 0;
	if (rc < 0 && rc != GIT_ENOTFOUND)
		return st_git_fail(rc, "read %s", ref);
	if (cas_ref(s, ref, &fetched, rc == 0 ? &cur : NULL, msg) < 0)
		return st_problem_add(pl, "tool %s: %s", tool, tg_error_last()->message);
	return 0;
}

int tg_store_fetch(tg_store *s, const char *url)
{
	strvec tools = { 0 }, active = { 0 }, specs = { 0 };
	tg_store_problem_list pl = { 0, NULL };
	st_quarantine *q = NULL;
	take *takes = NULL;
	git_oid *tips = NULL, *hide = NULL;
	size_t ntakes = 0, nobj = 0;
	git_remote *remote = NULL;
	git_remote_callbacks cb;
	git_fetch_options fo;
	const git_remote_head **heads = NULL;
	git_strarray arr;
	char ns[96], msg[160];
	size_t i, nheads = 0;
	int rc, connected = 0;

	if ((rc = st_check_remote_url(url)) < 0)
		return rc;
	snprintf(ns, sizeof(ns), "%s%ld-%llu/", ST_FETCH_PREFIX, (long)getpid(), (unsigned long long)tg_now_ms());
	snprintf(msg, sizeof(msg), "toolgate: fetch from %.120s", url);
	if ((rc = st_open_remote(&remote, s, url)) < 0)
		goto out;
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	if ((rc = git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL)) < 0) {
		rc = st_git_fail(rc, "connect to %s", url);
		goto out;
	}
	connected = 1;
	if ((rc = git_remote_ls(&heads, &nheads, remote)) < 0) {
		rc = st_git_fail(rc, "list refs of %s", url);
		goto out;
	}
	if (nheads > ST_MAX_REMOTE_REFS) {
		rc = tg_error_set(TG_ERR_LIMIT, "remote %s: more than %u refs", url, ST_MAX_REMOTE_REFS);
		goto out;
	}
	for (i = 0; i < nheads && rc == 0; i++) {
		const char *name = heads[i]->name;
		if (!strncmp(name, ST_TOOLS_PREFIX, strlen(ST_TOOLS_PREFIX)) &&
		    tg_name_valid(name + strlen(ST_TOOLS_PREFIX)))
			rc = strvec_addf(&tools, "%s", name + strlen(ST_TOOLS_PREFIX));
		else if (!strncmp(name, ST_ACTIVE_PREFIX, strlen(ST_ACTIVE_PREFIX)) &&
			 tg_name_valid(name + strlen(ST_ACTIVE_PREFIX)))
			rc = strvec_addf(&active, "%s", name + strlen(ST_ACTIVE_PREFIX));
	}
	for (i = 0; i < tools.n && rc == 0; i++)
		rc = strvec_addf(&specs, "+%s%s:%stools/%s", ST_TOOLS_PREFIX, tools.v[i], ns, tools.v[i]);
	for (i = 0; i < active.n && rc == 0; i++)
		rc = strvec_addf(&specs, "+%s%s:%sactive/%s", ST_ACTIVE_PREFIX, active.v[i], ns, active.v[i]);
	git_remote_disconnect(remote);
	connected = 0;
	if (rc < 0 || !specs.n)
		goto out;
	/* into a quarantine: only the histories that pass enter the store */
	git_remote_free(remote);
	remote = NULL;
	if ((rc = st_quarantine_open(&q, s)) < 0 || (rc = st_open_remote(&remote, &q->view, url)) < 0)
		goto out;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.update_fetchhead = 0;
	arr.strings = specs.v;
	arr.count = specs.n;
	st_snapshot_drop(s);
	if ((rc = git_remote_fetch(remote, &arr, &fo, msg)) < 0) {
		rc = st_git_fail(rc, "fetch from %s", url);
		goto out;
	}
	takes = calloc(tools.n + 1, sizeof(*takes));
	tips = calloc(tools.n + 1, sizeof(*tips));
	hide = calloc(tools.n + 1, sizeof(*hide));
	if (!takes || !tips || !hide) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < tools.n && rc == 0; i++) {
		int ok = 0;
		rc = check_tool(&pl, &takes[ntakes], &ok, s, &q->view, ns, tools.v[i]);
		if (rc == 0 && ok) {
			tips[ntakes] = takes[ntakes].fetched;
			if (takes[ntakes].has_local)
				hide[ntakes] = takes[ntakes].local;
			ntakes++;
		}
	}
	if (rc == 0)
		rc = st_quarantine_admit(&nobj, q, s, tips, hide, ntakes);
	for (i = 0; i < ntakes && rc == 0; i++)
		rc = take_tool(&pl, s, &takes[i], msg);
	for (i = 0; i < active.n && rc == 0; i++)
		rc = take_active(&pl, s, &q->view, ns, active.v[i], msg);
	if (rc == 0 && pl.n)
		rc = tg_error_set(TG_ERR_CONFLICT, "fetch from %s: %zu problem(s), first: %s", url, pl.n, pl.items[0]);
out:
	if (connected)
		git_remote_disconnect(remote);
	git_remote_free(remote);
	st_quarantine_free(q);
	free(takes);
	free(tips);
	free(hide);
	for (i = 0; i < pl.n; i++)
		free(pl.items[i]);
	free(pl.items);
	strvec_free(&tools);
	strvec_free(&active);
	strvec_free(&specs);
	return rc;
}
