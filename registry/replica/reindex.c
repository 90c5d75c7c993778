/*
 * registry/replica/reindex.c: bring SQLite up to what the store (the source of
 * truth) holds. Run by an open that finds the store changed since the last
 * re-index (registry.c), and by verify: for each tool in the store, versions the
 * registry lacks are indexed from their commit (trailers + tool.json,
 * analysis.json, tests.json) and the active pointer follows
 * refs/active/<tool>. A crash between the store write and the SQLite
 * transaction, or a deleted registry.db, is repaired here. What cannot be
 * recovered from git (audit and call logs, approval records, activation
 * events) is said so by verify. A version pulled from a remote is indexed
 * with this host's own verdict (its local note, written by pull.c before the
 * version entered refs/tools/), never with the remote's trailers.
 */
#include "registry/replica/replica.h"

#include <errno.h>
#include <string.h>

static void note(tg_registry *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(tg_registry *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r->repairs)
		json_array_append_new(r->repairs, json_string(buf));
}

static void problem(tg_registry *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(tg_registry *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r->reindex_problems)
		json_array_append_new(r->reindex_problems, json_string(buf));
}

static int read_json_file(json_t **out, tg_registry *r, const char *tool, unsigned v,
			  const char *path)
{
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	tg_json_limits lim = { 16u << 20, 128 };
	tg_store *s;
	int rc;

	*out = NULL;
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_get_file(&data, &len, s, tool, v, path);
	if (rc == TG_ERR_NOTFOUND) {
		tg_error_clear();
		return 0;
	}
	if (rc < 0)
		return rc;
	rc = tg_json_parse(out, data, len, &lim);
	if (rc < 0) {
		tg_error_clear();
		*out = NULL;
	}
	return 0;
}

int reg_local_verdict(json_t **out, tg_registry *r, const char *commit)
{
	_cleanup_free_ char *text = NULL;
	tg_json_limits lim = { 16u << 20, 128 };
	tg_store *s;
	int rc;

	*out = NULL;
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if ((rc = tg_store_note_get(&text, s, commit)) < 0)
		return tg_error_prefix("store");
	if (!text)
		return 0;
	if (tg_json_parse(out, text, strlen(text), &lim) < 0 || !json_is_object(*out) ||
	    !json_is_string(json_object_get(*out, "status")) ||
	    !json_is_string(json_object_get(*out, "verdict"))) {
		/* unreadable: the version counts as failed here */
		tg_error_clear();
		json_decref(*out);
		*out = json_pack("{s:s, s:s, s:s}", "status", "failed", "verdict", "reject", "reason",
				 "this host's record of its checks is unreadable");
		if (!*out)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return 0;
}

int reg_index_store_version(tg_registry *r, const char *tool, const tg_store_version *sv,
			    unsigned active)
{
	_cleanup_json_ json_t *local = NULL;
	_cleanup_json_ json_t *manifest = NULL, *analysis = NULL, *tests = NULL;
	reg_version_rec rec = { 0 };
	const char *status = tg_store_version_trailer(sv, "Toolgate-Status");
	const char *verdict = tg_store_version_trailer(sv, "Toolgate-Verdict");
	_cleanup_free_ char *src = NULL;
	char hash[65];
	size_t srclen = 0;
	tg_store *s;
	int64_t tool_id;
	int rc, inserted;

	if ((rc = read_json_file(&manifest, r, tool, sv->version, "tool.json")) < 0 ||
	    (rc = read_json_file(&analysis, r, tool, sv->version, "analysis.json")) < 0 ||
	    (rc = read_json_file(&tests, r, tool, sv->version, "tests.json")) < 0)
		return rc;
	if (!manifest || !json_is_object(manifest)) {
		json_decref(manifest);
		manifest = json_object();
	}
	if ((rc = reg_local_verdict(&local, r, sv->commit)) < 0)
		return rc;
	if (local) {
		/* pulled: this host's checks, not the remote's claims */
		json_decref(analysis);
		json_decref(tests);
		status = json_string_value(json_object_get(local, "status"));
		verdict = json_string_value(json_object_get(local, "verdict"));
		analysis = json_pack("{s:s, s:O?, s:O?}", "verdict", verdict, "findings",
				     json_object_get(local, "findings"), "reason",
				     json_object_get(local, "reason"));
		tests = json_incref(json_object_get(local, "tests"));
	}
	if (!status)
		status = "failed";
	if (strcmp(status, "active") == 0 || strcmp(status, "inactive") == 0)
		status = sv->version == active ? "active" : "inactive";
	else if (strcmp(status, "pending") == 0)
		status = sv->version == active ? "active" : "pending";
	else if (strcmp(status, "rejected") != 0)
		status = "failed";
	/* approvals live only in registry.db: a version asking for capabilities
	 * that is not active is pending again (an active one follows the store,
	 * and calls refuse it until a person approves it) */
	if (strcmp(status, "inactive") == 0 &&
	    json_array_size(json_object_get(manifest, "capabilities")) > 0)
		status = "pending";
	if (!verdict || strcmp(verdict, "pass") != 0)
		verdict = "reject";
	rec.version = sv->version;
	rec.status = status;
	rec.verdict = verdict;
	rec.reason = json_string_value(json_object_get(analysis, "reason"));
	rec.commit = sv->commit;
	/* the content hash is recomputed from the stored source, never taken
	 * from the commit's trailer (a claim; verify compares the two) */
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_get_file(&src, &srclen, s, tool, sv->version, "tool.c");
	if (rc == TG_ERR_NOTFOUND) {
		tg_error_clear();
	} else if (rc < 0) {
		return tg_error_prefix("store");
	} else {
		reg_content_hash(hash, src, srclen);
		rec.content_hash = hash;
	}
	rec.submitter = tg_store_version_trailer(sv, "Toolgate-Submitter");
	rec.time = sv->time;
	rec.manifest = manifest;
	rec.analysis = json_is_object(analysis) ? analysis : NULL;
	rec.tests = json_is_array(tests) ? tests : NULL;
	rc = reg_tool_id(r, tool, 1, &tool_id);
	if (rc < 0)
		return rc;
	return reg_insert_version(r, tool_id, &rec, &inserted);
}

/* Make SQLite's active pointer for tool follow the store's, read again
 * under the transaction's write lock (activations hold it while they move
 * the ref, so what is read here cannot be overtaken). */
static int follow_active(tg_registry *r, const char *tool)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int64_t tool_id;
	unsigned cur, store_active = 0;
	tg_store *s;
	int rc;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_get_active(&store_active, NULL, s, tool);
	if (rc < 0)
		return tg_error_prefix("store");
	rc = reg_tool_id(r, tool, 1, &tool_id);
	if (rc < 0)
		return rc;
	rc = reg_active_version(r, tool_id, &cur);
	if (rc < 0 || cur == store_active)
		return rc;
	note(r, "%s: the active version follows the store's refs/active: v%u (the registry had "
		"v%u)", tool, store_active, cur);
	if (store_active)
		return reg_activate(r, tool_id, tool, store_active, "reindex", NULL);
	rc = reg_prepare(r, &st, "UPDATE versions SET status = 'inactive' WHERE tool_id = ?1 AND "
				 "status = 'active'");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	if ((rc = reg_step(st)) != SQLITE_DONE)
		return reg_sqlerr(r, rc, "deactivate");
	reg_finalizep(&st);
	st = NULL;
	rc = reg_prepare(r, &st, "UPDATE tools SET active_version = 0 WHERE id = ?1");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	if ((rc = reg_step(st)) != SQLITE_DONE)
		return reg_sqlerr(r, rc, "deactivate");
	return reg_bump_generation(r);
}

/* Index what is missing for one tool; *changed when anything was. */
/* What the registry holds of one tool, for the cheap test of reindex_tool:
 * all tools read in one query (not three queries per tool). */
typedef struct known {
	char *name;
	int64_t id;
	unsigned max, active;
} known;

typedef struct known_list {
	size_t n;
	known *items; /* sorted by name (strcmp) */
} known_list;

static void known_free(known_list *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->items[i].name);
	free(k->items);
	k->items = NULL;
	k->n = 0;
}

static int cmp_known(const void *a, const void *b)
{
	return strcmp(((const known *)a)->name, ((const known *)b)->name);
}

static int load_known(known_list *k, tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = reg_prepare(r, &st, "SELECT t.name, t.id, coalesce(t.active_version, 0), "
				     "coalesce((SELECT max(version) FROM versions v WHERE "
				     "v.tool_id = t.id), 0) FROM tools t");

	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		known *e;
		if (k->n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			known *ni = realloc(k->items, nc * sizeof(*ni));
			if (!ni)
				goto oom;
			k->items = ni;
			cap = nc;
		}
		e = &k->items[k->n];
		if (!(e->name = strdup((const char *)sqlite3_column_text(st, 0))))
			goto oom;
		e->id = sqlite3_column_int64(st, 1);
		e->active = (unsigned)sqlite3_column_int64(st, 2);
		e->max = (unsigned)sqlite3_column_int64(st, 3);
		k->n++;
	}
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "list tools");
		known_free(k);
		return rc;
	}
	if (k->n)
		qsort(k->items, k->n, sizeof(*k->items), cmp_known);
	return 0;
oom:
	known_free(k);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* pre: what load_known read (NULL: read this tool's rows here). A tool
 * that needs work is read again here, so that the work follows the
 * registry as it is now, not as it was when the list was loaded. */
static int reindex_tool(tg_registry *r, const char *tool, int *began, int fresh,
			const known_list *pre)
{
	tg_store_version_list *l = NULL;
	int64_t tool_id = 0;
	tg_store_version *next = NULL;
	unsigned have = 0, sql_active = 0, store_active = 0;
	tg_store *s;
	size_t i;
	int rc, missing;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_get_active(&store_active, NULL, s, tool);
	if (rc < 0)
		return tg_error_prefix("store");
	if (pre) {
		known key = { (char *)tool, 0, 0, 0 };
		const known *e = pre->n ? bsearch(&key, pre->items, pre->n, sizeof(key), cmp_known)
					: NULL;
		if (e) {
			tool_id = e->id;
			have = e->max;
			sql_active = e->active;
		}
	} else {
		rc = reg_tool_id(r, tool, 0, &tool_id);
		if (rc < 0)
			return rc;
		if (tool_id) {
			if ((rc = reg_max_version(r, tool_id, &have)) < 0 ||
			    (rc = reg_active_version(r, tool_id, &sql_active)) < 0)
				return rc;
		}
	}
	/* cheap test first: only the tip is read when version have+1 is absent */
	rc = tg_store_get_version(&next, s, tool, have + 1);
	tg_store_version_free(next);
	if (rc < 0 && rc != TG_ERR_NOTFOUND)
		return tg_error_prefix("store");
	tg_error_clear();
	missing = rc == 0;
	if (!missing && store_active == sql_active)
		return 0;
	if (pre)
		return reindex_tool(r, tool, began, fresh, NULL);
	if (r->readonly) {
		/* a read-only home: said, never repaired (registry.c) */
		r->behind++;
		if (missing)
			return tg_error_set(TG_ERR_UNAVAILABLE, "registry.db lacks the versions "
					    "after v%u that the store holds, and the home is "
					    "read-only", have);
		return tg_error_set(TG_ERR_UNAVAILABLE, "the store's active version is v%u, "
				    "registry.db's v%u, and the home is read-only", store_active,
				    sql_active);
	}
	if (missing) {
		rc = tg_store_list_versions(&l, s, tool);
		if (rc < 0)
			return tg_error_prefix("store");
	}
	if (!*began) {
		rc = reg_begin(r);
		if (rc < 0)
			goto out;
		*began = 1;
	}
	/* oldest first, so ids follow version order */
	for (i = l ? l->n : 0; i-- > 0;) {
		if (l->items[i].version <= have)
			continue;
		rc = reg_index_store_version(r, tool, &l->items[i], store_active);
		if (rc < 0)
			goto out;
		if (!fresh) {
			_cleanup_json_ json_t *d = json_pack("{s:i, s:s}", "version",
							     (int)l->items[i].version, "commit",
							     l->items[i].commit);
			note(r, "re-indexed %s v%u from the store (the registry lacked it)", tool,
			     l->items[i].version);
			rc = d ? reg_audit_append(r, NULL, "reindex_version", tool, d)
			       : tg_error_set(TG_ERR_NOMEM, "out of memory");
			if (rc < 0)
				goto out;
		}
	}
	rc = follow_active(r, tool);
out:
	tg_store_version_list_free(l);
	return rc;
}

int reg_reindex(tg_registry *r, int fresh)
{
	char **names = NULL;
	known_list pre = { 0, NULL };
	size_t n = 0, i;
	tg_store *s;
	int rc, began = 0;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_list_tools(&names, &n, s);
	if (rc < 0)
		return tg_error_prefix("store");
	if ((rc = load_known(&pre, r)) < 0)
		goto out;
	if (fresh && (n > 0 || access(r->anchor_path, F_OK) == 0)) {
		rc = reg_begin(r);
		if (rc < 0)
			goto out;
		began = 1;
		rc = reg_audit_note_rebuild(r, NULL);
		if (rc < 0)
			goto out;
	}
	for (i = 0; i < n; i++) {
		int had_txn = began;
		int64_t seq = r->audit_seq_pending;
		char hash[65];

		memcpy(hash, r->audit_hash_pending, sizeof(hash));
		if (began && (rc = reg_exec(r, "SAVEPOINT reindex_tool")) < 0)
			goto out;
		rc = reindex_tool(r, names[i], &began, fresh, &pre);
		if (rc < 0) {
			/* one damaged tool must not lock every command out: undo its
			 * part, say so (verify reports it), go on with the others */
			if (tg_error_last()->code == TG_ERR_NOMEM)
				goto out;
			problem(r, "%s: could not be re-indexed from the store: %s", names[i],
				tg_error_last()->message);
			tg_error_clear();
			if (began && (rc = reg_exec(r, had_txn ? "ROLLBACK TO reindex_tool"
							       : "ROLLBACK")) < 0)
				goto out;
			if (!had_txn) {
				r->in_txn = 0;
				began = 0;
			}
			r->audit_seq_pending = seq;
			memcpy(r->audit_hash_pending, hash, sizeof(hash));
			reg_audit_mirror_keep(r, seq); /* its entries are undone */
		}
		if (had_txn && (rc = reg_exec(r, "RELEASE reindex_tool")) < 0)
			goto out;
		rc = 0;
	}
	if (began) {
		began = 0;
		rc = reg_commit(r);
	}
out:
	if (began)
		reg_rollback(r);
	known_free(&pre);
	tg_store_free_names(names, n);
	return rc;
}
