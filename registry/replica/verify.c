/*
 * registry/replica/verify.c: `toolgate verify`. Three checks, every disagreement a
 * line in "problems": the store's own verify (refs resolve, every version
 * commit complete and numbered in sequence), the registry against the store
 * (same versions, commits, content hashes and active pointers; nothing in
 * SQLite the store does not hold), and the audit chain with its two heads.
 * Trust is not taken from either side: each version's content hash is
 * recomputed from its tool.c in the store and compared with the registry
 * row and with what this host recorded when the version came in (the
 * basis): the commit's trailers for a version created here, this host's
 * local note for one pulled from a remote, whose trailers are the remote's
 * claims (a claim that differs is a note, never a problem). The registry's
 * status and verdict must follow from the basis and the people's decisions
 * since: a recorded denial makes "denied" the only right status, and
 * "denied" needs one; an active version must have passed here (verdict
 * pass, status active, every test passed); and a cached build must still
 * hash to what was recorded when it was built (docs/STORE.md, "What verify
 * compares").
 * A signed version commit must carry a signature that verifies (ssh-keygen,
 * store/sign.c); valid signatures by keys outside trusted_signers and
 * unsigned commits are counted in a note.
 * "notes" says what the re-index on open repaired and what a rebuild lost.
 */
#include "registry/replica/replica.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* May a registry row have status reg for a version whose basis (its
 * commit's trailer, or this host's local note) says tr? The mapping of
 * reindex.c and of the people's acts other than a denial (check_status
 * handles that): an activation, rollback or removal moves active and
 * inactive; an approval turns pending into active, later inactive. */
static int status_agrees(const char *tr, const char *reg)
{
	if (!strcmp(tr, "active") || !strcmp(tr, "inactive")) /* held: shadow runs (shadow.c) */
		return !strcmp(reg, "active") || !strcmp(reg, "inactive") || !strcmp(reg, "held");
	if (!strcmp(tr, "pending"))
		return !strcmp(reg, "pending") || !strcmp(reg, "active") || !strcmp(reg, "inactive");
	return !strcmp(tr, reg);
}

/* The names in cache/, read once per verify (a readdir, not an lstat per
 * version): listed 1 when they could be read (a missing cache/ is empty). */
typedef struct cache_names {
	int listed;
	size_t n;
	char **items; /* sorted */
} cache_names;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void cache_names_free(cache_names *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->items[i]);
	free(c->items);
	c->items = NULL;
	c->n = 0;
	c->listed = 0;
}

static int cache_names_read(cache_names *c, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	if (!d) {
		c->listed = errno == ENOENT;
		return 0; /* unreadable: an lstat per version, as before */
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (c->n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **ni = realloc(c->items, nc * sizeof(*ni));
			if (!ni)
				goto oom;
			c->items = ni;
			cap = nc;
		}
		if (!(c->items[c->n] = strdup(de->d_name)))
			goto oom;
		c->n++;
	}
	closedir(d);
	if (c->n)
		qsort(c->items, c->n, sizeof(*c->items), cmp_name);
	c->listed = 1;
	return 0;
oom:
	closedir(d);
	cache_names_free(c);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* The cached build of one content hash: its files must hash to the record. */
static int check_cache(tg_registry *r, const cache_names *cn, const char *tool, unsigned v,
		       const char *hash, json_t *problems, json_t *notes)
{
	_cleanup_free_ char *dir = NULL, *bin = NULL, *obj = NULL;
	char key[65], hbin[65], hobj[65], got[65];
	struct stat st;
	int rc;

	if ((rc = reg_cache_key(key, hash, r)) < 0)
		return rc;
	if (cn->listed) {
		const char *k = key;
		if (!cn->n || !bsearch(&k, cn->items, cn->n, sizeof(*cn->items), cmp_name))
			return 0; /* not built (yet): a call builds it */
	}
	dir = tg_path_join(r->cache_dir, key);
	bin = dir ? tg_path_join(dir, "tool") : NULL;
	obj = dir ? tg_path_join(dir, "tool.o") : NULL;
	if (!bin || !obj)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!cn->listed && lstat(dir, &st) != 0)
		return 0;
	if ((rc = reg_cache_record(r, key, hbin, hobj)) < 0)
		return rc;
	if (rc == 0) {
		reg_add_line(notes, "cache: %s@%u: the cached build has no record of being built here; it "
			   "is rebuilt before any use", tool, v);
		return 0;
	}
	if (reg_file_sha256(got, bin) < 0 || strcmp(got, hbin) != 0)
		reg_add_line(problems, "cache: %s@%u: the cached binary does not match the hash recorded "
			      "when it was built (%.12s)", tool, v, hbin);
	if (reg_file_sha256(got, obj) < 0 || strcmp(got, hobj) != 0)
		reg_add_line(problems, "cache: %s@%u: the cached object file does not match the hash "
			      "recorded when it was built (%.12s)", tool, v, hobj);
	tg_error_clear();
	return 0;
}

/* The registry's side of a verify, read in two queries for the whole run
 * (not a few per tool and one per version): every tool row, sorted by name,
 * and every version row with the count of its tests that did not pass,
 * sorted by (tool id, version); looked up by binary search. */
typedef struct vtool {
	char *name;
	int64_t id;
	unsigned active;
} vtool;

typedef struct vrow {
	int64_t tool_id, id;
	unsigned version;
	int failed;  /* tests that did not pass */
	int denied;  /* a denial of it is recorded */
	char *commit, *hash, *status, *verdict;
} vrow;

typedef struct vq {
	size_t ntools, nrows;
	vtool *tools;
	vrow *rows;
	cache_names cache;
} vq;

static void vq_free(vq *q)
{
	size_t i;

	for (i = 0; i < q->ntools; i++)
		free(q->tools[i].name);
	for (i = 0; i < q->nrows; i++) {
		free(q->rows[i].commit);
		free(q->rows[i].hash);
		free(q->rows[i].status);
		free(q->rows[i].verdict);
	}
	free(q->tools);
	free(q->rows);
	cache_names_free(&q->cache);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	return strdup(t ? t : "");
}

static int cmp_vtool(const void *a, const void *b)
{
	return strcmp(((const vtool *)a)->name, ((const vtool *)b)->name);
}

static int cmp_vrow(const void *a, const void *b)
{
	const vrow *x = a, *y = b;

	if (x->tool_id != y->tool_id)
		return x->tool_id < y->tool_id ? -1 : 1;
	return x->version < y->version ? -1 : x->version > y->version;
}

static int vq_load(tg_registry *r, vq *q)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if ((rc = reg_prepare(r, &st, "SELECT id, name, active_version FROM tools")) < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		vtool *t;
		if (q->ntools == cap) {
			size_t nc = cap ? cap * 2 : 64;
			vtool *ni = realloc(q->tools, nc * sizeof(*ni));
			if (!ni)
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
			q->tools = ni;
			cap = nc;
		}
		t = &q->tools[q->ntools];
		t->id = sqlite3_column_int64(st, 0);
		t->active = (unsigned)sqlite3_column_int64(st, 2);
		if (!(t->name = col_dup(st, 1)))
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		q->ntools++;
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list tools");
	if (q->ntools)
		qsort(q->tools, q->ntools, sizeof(*q->tools), cmp_vtool);
	reg_finalizep(&st);
	st = NULL;
	cap = 0;
	if ((rc = reg_prepare(r, &st, "SELECT v.tool_id, v.version, v.commit_id, v.content_hash, "
				      "v.status, v.verdict, v.id, (SELECT count(*) FROM test_results "
				      "t WHERE t.version_id = v.id AND t.passed = 0), v.id IN "
				      "(SELECT version_id FROM denials) FROM versions v")) < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		vrow *w;
		if (q->nrows == cap) {
			size_t nc = cap ? cap * 2 : 256;
			vrow *ni = realloc(q->rows, nc * sizeof(*ni));
			if (!ni)
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
			q->rows = ni;
			cap = nc;
		}
		w = &q->rows[q->nrows];
		memset(w, 0, sizeof(*w));
		q->nrows++;
		w->tool_id = sqlite3_column_int64(st, 0);
		w->version = (unsigned)sqlite3_column_int64(st, 1);
		w->id = sqlite3_column_int64(st, 6);
		w->failed = (int)sqlite3_column_int64(st, 7);
		w->denied = sqlite3_column_int(st, 8) != 0;
		if (!(w->commit = col_dup(st, 2)) || !(w->hash = col_dup(st, 3)) ||
		    !(w->status = col_dup(st, 4)) || !(w->verdict = col_dup(st, 5)))
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "list versions");
	if (q->nrows)
		qsort(q->rows, q->nrows, sizeof(*q->rows), cmp_vrow);
	return 0;
}

static const vtool *vq_tool(const vq *q, const char *name)
{
	vtool key = { (char *)name, 0, 0 };

	return q->ntools ? bsearch(&key, q->tools, q->ntools, sizeof(key), cmp_vtool) : NULL;
}

/* The rows of tool id: *first and the count. */
static size_t vq_rows(const vq *q, int64_t id, const vrow **first)
{
	size_t lo = 0, hi = q->nrows, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (q->rows[mid].tool_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < q->nrows && q->rows[i].tool_id == id; i++)
		;
	*first = q->rows + lo;
	return i - lo;
}

/* What this host decided about a version when it entered the store, the
 * basis its registry row is compared with: for a version created here, its
 * commit's trailers (this host wrote them); for a version pulled from a
 * remote, this host's local note (written by pull.c from its own re-vetting:
 * the commit's trailers there are the remote's claims, compared only to
 * name a claim that differs, in a note). */
typedef struct basis {
	const char *status, *verdict;
	const char *hash; /* the content hash the basis records; NULL: none */
	int noted;        /* from a local note */
} basis;

/* The basis of sv (*local holds the note it points into); a claim of the
 * remote that differs from what this host found is a note. */
static int basis_of(basis *b, json_t **local, tg_registry *r, const char *tool,
		    const tg_store_version *sv, const char *hash, json_t *notes)
{
	const char *ts = tg_store_version_trailer(sv, "Toolgate-Status");
	const char *tv = tg_store_version_trailer(sv, "Toolgate-Verdict");
	const char *th = tg_store_version_trailer(sv, "Toolgate-Content-Hash");
	int rc;

	b->status = ts;
	b->verdict = tv;
	b->hash = th;
	b->noted = 0;
	if ((rc = reg_local_verdict(local, r, sv->commit)) < 0)
		return rc;
	if (!*local)
		return 0;
	b->noted = 1;
	b->status = json_string_value(json_object_get(*local, "status"));
	b->verdict = json_string_value(json_object_get(*local, "verdict"));
	b->hash = json_string_value(json_object_get(*local, "content_hash"));
	if (b->hash && !b->hash[0])
		b->hash = NULL; /* tool.json or tool.c was unreadable at the pull */
	if (!ts || !tv || !status_agrees(ts, b->status) || strcmp(tv, b->verdict) != 0)
		reg_add_line(notes, "pull: %s@%u: the remote claimed status %s, verdict %s; here: %s, %s",
			     tool, sv->version, ts ? ts : "(none)", tv ? tv : "(none)", b->status,
			     b->verdict);
	if (hash && (!th || strcmp(th, hash) != 0))
		reg_add_line(notes, "pull: %s@%u: the remote claimed content hash %.12s; tool.c hashes "
			     "to %.12s here", tool, sv->version, th ? th : "(none)", hash);
	return 0;
}

/* The content hash recomputed from tool.c against the registry row and
 * the basis: the trailer of a version created here, the hash this host's
 * note recorded for a pulled one. */
static void check_hash(const char *tool, unsigned v, const basis *b, const char *rh,
		       const char *hash, json_t *problems)
{
	if (strcmp(rh, hash) != 0)
		reg_add_line(problems, "registry: %s@%u: content hash differs: %.12s in the registry, "
			     "tool.c in the store hashes to %.12s", tool, v, rh, hash);
	if (b->noted) {
		if (b->hash && strcmp(b->hash, hash) != 0)
			reg_add_line(problems, "store: %s@%u: tool.c hashes to %.12s but this host's local "
				     "note recorded %.12s when it was pulled", tool, v, hash, b->hash);
	} else if (!b->hash) {
		reg_add_line(problems, "store: %s@%u: the commit has no Toolgate-Content-Hash trailer", tool, v);
	} else if (strcmp(b->hash, hash) != 0) {
		reg_add_line(problems, "store: %s@%u: tool.c hashes to %.12s but the commit's "
			     "Toolgate-Content-Hash says %.12s", tool, v, hash, b->hash);
	}
}

/* The registry's status and verdict against the basis and the people's
 * decisions since: a denial recorded in the registry makes "denied" the
 * only right status (and "denied" needs one); otherwise the status may
 * have moved only as activations, rollbacks, removals and approvals move
 * it (status_agrees); the verdict never moves. */
static void check_status(const char *tool, const tg_store_version *sv, const basis *b,
			 const vrow *row, unsigned sql_active, json_t *problems)
{
	const char *said_s = b->noted ? "this host's local note: status " : "the commit's Toolgate-Status: ";
	const char *said_v = b->noted ? "this host's local note: verdict " : "the commit's Toolgate-Verdict: ";
	const char *rs = row->status, *rv = row->verdict;
	unsigned v = sv->version;

	if (row->denied) {
		if (strcmp(rs, "denied") != 0)
			reg_add_line(problems, "registry: %s@%u: status %s in the registry, but a person "
				     "denied it (its denial is recorded)", tool, v, rs);
	} else if (!strcmp(rs, "denied")) {
		reg_add_line(problems, "registry: %s@%u: status denied in the registry, but no denial of "
			     "it is recorded", tool, v);
	} else if (!b->status || !status_agrees(b->status, rs)) {
		reg_add_line(problems, "registry: %s@%u: status %s in the registry disagrees with %s%s",
			     tool, v, rs, said_s, b->status ? b->status : "(none)");
	}
	if (!b->verdict || strcmp(b->verdict, rv) != 0)
		reg_add_line(problems, "registry: %s@%u: verdict %s in the registry disagrees with %s%s",
			     tool, v, rv, said_v, b->verdict ? b->verdict : "(none)");
	if (v != sql_active)
		return;
	if (strcmp(rs, "active") != 0 || strcmp(rv, "pass") != 0)
		reg_add_line(problems, "registry: %s@%u is active but did not pass here (status %s, "
			     "verdict %s)", tool, v, rs, rv);
	/* a pulled version's note already had to agree with the row above */
	if (!b->noted && b->status && strcmp(b->status, "active") && strcmp(b->status, "inactive") &&
	    strcmp(b->status, "pending"))
		reg_add_line(problems, "store: %s@%u is active but its commit says Toolgate-Status: %s",
			     tool, v, b->status);
	if (!b->noted && b->verdict && strcmp(b->verdict, "pass") != 0)
		reg_add_line(problems, "store: %s@%u is active but its commit says Toolgate-Verdict: %s",
			     tool, v, b->verdict);
	if (row->failed > 0)
		reg_add_line(problems, "registry: %s@%u is active but %d of its tests did not pass", tool,
			     v, row->failed);
}

/* Checks of one version beyond commit equality. */
static int check_version(tg_registry *r, vq *q, const char *tool, const tg_store_version *sv,
			 const vrow *row, unsigned sql_active, json_t *problems, json_t *notes)
{
	_cleanup_free_ char *src = NULL;
	_cleanup_json_ json_t *local = NULL;
	unsigned v = sv->version;
	char hash[65];
	size_t len = 0;
	basis b;
	tg_store *s;
	int rc, readable;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	/* by commit id: the commit list_versions walked to (a lookup by version
	 * would walk down from the tip again, O(versions) per version) */
	readable = tg_store_get_file_at(&src, &len, s, sv->commit, "tool.c") == 0;
	if (readable)
		reg_content_hash(hash, src, len);
	else
		reg_add_line(problems, "store: %s@%u: tool.c unreadable: %s", tool, v,
			     tg_error_last()->message);
	tg_error_clear();
	if ((rc = basis_of(&b, &local, r, tool, sv, readable ? hash : NULL, notes)) < 0)
		return rc;
	if (!readable)
		return 0;
	check_hash(tool, v, &b, row->hash, hash, problems);
	check_status(tool, sv, &b, row, sql_active, problems);
	return check_cache(r, &q->cache, tool, v, hash, problems, notes);
}

/* Signature counts over the versions checked: unsigned, good, untrusted. */
typedef struct sig_counts {
	size_t none, good, untrusted;
} sig_counts;

/* A signed version commit must verify: a signature that does not match the
 * commit (edited after signing, copied from another commit, not an SSH
 * signature) is a problem; a valid one by a key not in trusted_signers is
 * counted (a note), as is an unsigned commit. */
static int check_signature(tg_registry *r, const char *tool, const tg_store_version *sv,
			   json_t *problems, sig_counts *sc)
{
	_cleanup_json_ json_t *sig = NULL;
	const char *st;
	int rc;

	if ((rc = reg_signature_json(&sig, r, sv->commit)) < 0)
		return rc;
	st = json_string_value(json_object_get(sig, "state"));
	if (!strcmp(st, "bad"))
		reg_add_line(problems, "store: %s@%u: the signature of commit %.12s does not verify: %s",
			     tool, sv->version, sv->commit,
			     json_string_value(json_object_get(sig, "why")));
	else if (!strcmp(st, "good"))
		sc->good++;
	else if (!strcmp(st, "untrusted"))
		sc->untrusted++;
	else
		sc->none++;
	return 0;
}

static int check_tool(tg_registry *r, vq *q, const char *tool, json_t *problems, json_t *notes,
		      size_t *nversions, sig_counts *sc)
{
	tg_store_version_list *l = NULL;
	unsigned store_active = 0, sql_active = 0;
	const vtool *t;
	const vrow *rows;
	size_t i, nrows;
	tg_store *s;
	int rc;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_get_active(&store_active, NULL, s, tool);
	if (rc < 0) {
		reg_add_line(problems, "store: %s: active ref unreadable: %s", tool, tg_error_last()->message);
		tg_error_clear();
	}
	if (!(t = vq_tool(q, tool)) || !t->id) {
		reg_add_line(problems, "registry: the store has tool %s but the registry does not", tool);
		return 0;
	}
	sql_active = t->active;
	nrows = vq_rows(q, t->id, &rows);
	rc = tg_store_list_versions(&l, s, tool);
	if (rc < 0) {
		reg_add_line(problems, "store: %s: history unreadable: %s", tool, tg_error_last()->message);
		tg_error_clear();
		return 0;
	}
	for (i = 0; i < l->n; i++) {
		const tg_store_version *sv = &l->items[i];
		vrow key = { t->id, 0, sv->version, 0, 0, NULL, NULL, NULL, NULL };
		const vrow *row = nrows ? bsearch(&key, rows, nrows, sizeof(key), cmp_vrow) : NULL;
		if (!row) {
			reg_add_line(problems, "registry: %s v%u is in the store but not in the registry", tool,
			    sv->version);
			continue;
		}
		if (strcmp(row->commit, sv->commit) != 0)
			reg_add_line(problems, "registry: %s v%u: commit %.12s in the registry, %.12s in the "
				      "store", tool, sv->version, row->commit, sv->commit);
		rc = check_version(r, q, tool, sv, row, sql_active, problems, notes);
		if (rc == 0)
			rc = check_signature(r, tool, sv, problems, sc);
		if (rc < 0)
			goto out;
	}
	*nversions += l->n;
	if (nrows > l->n)
		reg_add_line(problems, "registry: %s has %lld versions in the registry but %zu in the store",
		    tool, (long long)nrows, l->n);
	if (sql_active != store_active)
		reg_add_line(problems, "registry: %s: active version v%u in the registry, v%u in the store",
		    tool, sql_active, store_active);
	rc = 0;
out:
	tg_store_version_list_free(l);
	return rc;
}

/* PRAGMA integrity_check: each line other than "ok" is a problem (at most
 * 20; a database too damaged to check is one problem). */
static int integrity(tg_registry *r, json_t *problems)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "PRAGMA integrity_check(20)");

	if (rc < 0) {
		reg_add_line(problems, "registry.db: the integrity check could not run: %s",
		    tg_error_last()->message);
		tg_error_clear();
		return 0;
	}
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		_cleanup_free_ char *copy = text ? strdup(text) : NULL;
		char *save = NULL, *line;

		if (!copy || strcmp(copy, "ok") == 0)
			continue;
		/* one problem per line, without SQLite's "*** in database" header */
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (strncmp(line, "*** in database", 15) != 0)
				reg_add_line(problems, "registry.db: integrity check: %s", line);
	}
	if (rc != SQLITE_DONE)
		reg_add_line(problems, "registry.db: the integrity check failed: %s", sqlite3_errmsg(r->db));
	return 0;
}

/* The page cache of a verify, KiB. */
#define VERIFY_CACHE_KIB "65536"

static int verify_all(json_t **out, tg_registry *r, json_t *problems, json_t *notes);

/* The audit chain: the archived start first (entries moved to archive
 * files), then the table's chain linked to the last archived hash, the
 * meta head and the anchor. */
static int verify_audit(tg_registry *r, json_t *problems, json_t *notes)
{
	char prev[65];
	int64_t start = 1;
	int rc;

	memset(prev, '0', 64);
	prev[64] = '\0';
	rc = reg_archive_verify(r, &start, prev, problems, notes);
	if (rc < 0)
		return rc;
	return reg_audit_verify(r, start, prev, problems, notes);
}

int tg_registry_verify(json_t **out, tg_registry *r)
{
	_cleanup_json_ json_t *problems = json_array(), *notes = json_array();
	int rc;

	*out = NULL;
	if (!problems || !notes)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* every page is read by the integrity check, then again by the queries
	 * below: a page cache that holds the whole database (SQLite's default is
	 * 2 MiB, a 2,000-tool registry.db is 2.8) reads each page once; the
	 * default is back at the end */
	(void)sqlite3_exec(r->db, "PRAGMA cache_size = -" VERIFY_CACHE_KIB, NULL, NULL, NULL);
	rc = verify_all(out, r, problems, notes);
	(void)sqlite3_exec(r->db, "PRAGMA cache_size = -2000", NULL, NULL, NULL);
	return rc;
}

static int verify_all(json_t **out, tg_registry *r, json_t *problems, json_t *notes)
{
	_cleanup_json_ json_t *res = NULL;
	tg_store_problem_list *pl = NULL;
	sig_counts sc = { 0, 0, 0 };
	vq q = { 0, 0, NULL, NULL, { 0, 0, NULL } };
	tg_store *s = NULL;
	char **names = NULL;
	json_t *rep;
	size_t n = 0, i, nversions = 0;
	int rc, reading = 0;

	/* SQLite's own check first: a damaged page makes every later answer
	 * suspect (and calls fail) */
	rc = integrity(r, problems);
	if (rc < 0)
		return rc;
	if (json_array_size(problems) > 0) {
		/* nothing read from a damaged database can be trusted: stop here */
		reg_add_line(notes, "the other checks were skipped: registry.db is damaged (restore it "
			   "from a backup, or move registry.db, -wal and -shm away to rebuild it "
			   "from the store, losing the audit and call logs)");
		res = json_pack("{s:b, s:O, s:O, s:{s:i, s:i}}", "ok", 0, "problems", problems,
				"notes", notes, "checked", "tools", 0, "versions", 0);
		if (!res)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		*out = TG_TAKE_PTR(res);
		return 0;
	}
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	/* every ref read once (one pass over loose refs and packed-refs, the
	 * notes listed once), not once per lookup: store/snapshot.c */
	if ((rc = tg_store_snapshot_refs(s)) < 0)
		return rc;
	/* the full comparison, whatever the fingerprint said at open: first the
	 * re-index the open skipped (its repairs and problems are reported) */
	if (!r->reindexed) {
		if ((rc = reg_reindex(r, 0)) < 0) {
			rc = tg_error_prefix("re-index from the store");
			goto out;
		}
		r->reindexed = 1;
	}
	/* a repair wrote a ref (which dropped the snapshot): read them again */
	if ((rc = tg_store_snapshot_refs(s)) < 0)
		goto out;
	rc = tg_store_verify(&pl, s);
	if (pl) {
		for (i = 0; i < pl->n; i++)
			reg_add_line(problems, "store: %s", pl->items[i]);
		tg_store_problem_list_free(pl);
	} else if (rc < 0) {
		reg_add_line(problems, "store: verify could not run: %s", tg_error_last()->message);
	}
	tg_error_clear();
	rc = tg_store_list_tools(&names, &n, s);
	if (rc < 0) {
		rc = tg_error_prefix("store");
		goto out;
	}
	/* the registry side in one read transaction (one snapshot of the
	 * database, one WAL read lock instead of one per statement) with its
	 * statements prepared once */
	if (!r->in_txn && reg_exec(r, "BEGIN") == 0)
		reading = 1;
	tg_error_clear();
	if ((rc = vq_load(r, &q)) < 0 || (rc = cache_names_read(&q.cache, r->cache_dir)) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		rc = check_tool(r, &q, names[i], problems, notes, &nversions, &sc);
		if (rc < 0)
			goto out;
	}
	if (sc.good || sc.untrusted)
		reg_add_line(notes, "signatures: %zu good (by a trusted signer), %zu valid by keys not in "
			     "trusted_signers, %zu unsigned", sc.good, sc.untrusted, sc.none);
	/* tools the registry has and the store does not (q.tools is sorted by
	 * name, names too: a binary search each) */
	for (i = 0; i < q.ntools; i++) {
		const char *name = q.tools[i].name;
		if (!n || !bsearch(&name, names, n, sizeof(*names), cmp_name))
			reg_add_line(problems, "registry: tool %s is not in the store", name);
	}
	if (reading) {
		reading = 0;
		if ((rc = reg_exec(r, "COMMIT")) < 0)
			goto out;
	}
	rc = verify_audit(r, problems, notes);
	if (rc < 0)
		goto out;
	rc = reg_calls_unfinished(r, notes);
	if (rc < 0)
		goto out;
	rc = reg_calls_cross_check(r, problems);
	if (rc < 0)
		goto out;
	json_array_foreach(r->repairs, i, rep)
		json_array_append(notes, rep);
	json_array_foreach(r->reindex_problems, i, rep)
		json_array_append(problems, rep);
	res = json_pack("{s:b, s:O, s:O, s:{s:i, s:i}}", "ok", json_array_size(problems) == 0,
			"problems", problems, "notes", notes, "checked", "tools", (int)n, "versions",
			(int)nversions);
	if (!res) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	*out = TG_TAKE_PTR(res);
	rc = 0;
out:
	vq_free(&q);
	if (reading)
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL); /* the caller's error stays */
	tg_store_snapshot_release(s);
	tg_store_free_names(names, n);
	return rc;
}
