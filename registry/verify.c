/*
 * registry/verify.c: `toolgate verify`. Three checks, every disagreement a
 * line in "problems": the store's own verify (refs resolve, every version
 * commit complete and numbered in sequence), the registry against the store
 * (same versions, commits, content hashes and active pointers; nothing in
 * SQLite the store does not hold), and the audit chain with its two heads.
 * Trust is not taken from either side: each version's content hash is
 * recomputed from its tool.c in the store and compared with its commit's
 * trailer and the registry row; the trailers' status and verdict must agree
 * with the registry's; an active version must have passed here (verdict
 * pass, status active, every test passed, a commit that says it passed);
 * and a cached build must still hash to what was recorded when it was built.
 * A signed version commit must carry a signature that verifies (ssh-keygen,
 * store/sign.c); valid signatures by keys outside trusted_signers and
 * unsigned commits are counted in a note.
 * "notes" says what the re-index on open repaired and what a rebuild lost.
 */
#include "reg_internal.h"

#include <string.h>
#include <sys/stat.h>

/* May a registry row have status reg for a commit whose trailer says tr?
 * (the mapping of reindex.c: an activation or rollback moves active and
 * inactive; an approval turns pending into active, later inactive) */
static int status_agrees(const char *tr, const char *reg)
{
	if (!strcmp(tr, "active") || !strcmp(tr, "inactive"))
		return !strcmp(reg, "active") || !strcmp(reg, "inactive");
	if (!strcmp(tr, "pending"))
		return !strcmp(reg, "pending") || !strcmp(reg, "active") ||
		       !strcmp(reg, "inactive") || !strcmp(reg, "denied");
	return !strcmp(tr, reg);
}

/* The cached build of one content hash: its files must hash to the record. */
static int check_cache(tg_registry *r, const char *tool, unsigned v, const char *hash,
		       json_t *problems, json_t *notes)
{
	_cleanup_free_ char *dir = NULL, *bin = NULL, *obj = NULL;
	char key[65], hbin[65], hobj[65], got[65];
	struct stat st;
	int rc;

	if ((rc = reg_cache_key(key, hash, r)) < 0)
		return rc;
	dir = tg_path_join(r->cache_dir, key);
	bin = dir ? tg_path_join(dir, "tool") : NULL;
	obj = dir ? tg_path_join(dir, "tool.o") : NULL;
	if (!bin || !obj)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (lstat(dir, &st) != 0)
		return 0; /* not built (yet): a call builds it */
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

/* The registry's side of a verify: statements prepared once for the whole
 * run (one per question, reset between tools), not once per tool. */
typedef struct vq {
	sqlite3_stmt *tool;     /* id, active_version of a tool by name */
	sqlite3_stmt *version;  /* one version row of a tool */
	sqlite3_stmt *count;    /* versions of a tool */
	sqlite3_stmt *failed;   /* tests of a version that did not pass */
} vq;

static void vq_free(vq *q)
{
	sqlite3_finalize(q->tool);
	sqlite3_finalize(q->version);
	sqlite3_finalize(q->count);
	sqlite3_finalize(q->failed);
}

static int vq_prepare(tg_registry *r, vq *q)
{
	int rc;

	if ((rc = reg_prepare(r, &q->tool, "SELECT id, active_version FROM tools WHERE name = ?1")) < 0 ||
	    (rc = reg_prepare(r, &q->version, "SELECT commit_id, content_hash, status, verdict, id "
					      "FROM versions WHERE tool_id = ?1 AND version = ?2")) < 0 ||
	    (rc = reg_prepare(r, &q->count, "SELECT count(*) FROM versions WHERE tool_id = ?1")) < 0 ||
	    (rc = reg_prepare(r, &q->failed, "SELECT count(*) FROM test_results WHERE version_id = "
					     "?1 AND passed = 0")) < 0)
		return rc;
	return 0;
}

/* Did the registry's row vid pass every test? -1 on error, else the number
 * of tests that did not pass. */
static int failed_tests(tg_registry *r, vq *q, int64_t vid)
{
	sqlite3_stmt *st = q->failed;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, vid);
	if ((rc = reg_step(st)) != SQLITE_ROW)
		return reg_sqlerr(r, rc, "count failed tests");
	return (int)sqlite3_column_int64(st, 0);
}

/* Checks of one version beyond commit and hash equality. */
static int check_version(tg_registry *r, vq *q, const char *tool, const tg_store_version *sv,
			 sqlite3_stmt *row, unsigned sql_active, json_t *problems, json_t *notes)
{
	_cleanup_free_ char *src = NULL;
	_cleanup_json_ json_t *local = NULL;
	const char *th = tg_store_version_trailer(sv, "Toolgate-Content-Hash");
	const char *ts = tg_store_version_trailer(sv, "Toolgate-Status");
	const char *tv = tg_store_version_trailer(sv, "Toolgate-Verdict");
	const char *rh = (const char *)sqlite3_column_text(row, 1);
	const char *rs = (const char *)sqlite3_column_text(row, 2);
	const char *rv = (const char *)sqlite3_column_text(row, 3);
	int64_t vid = sqlite3_column_int64(row, 4);
	unsigned v = sv->version;
	char hash[65];
	size_t len = 0;
	tg_store *s;
	int rc, nf;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	/* a pulled version: the registry follows this host's checks (its local
	 * note); the remote's trailers are claims, and a claim that differs is
	 * a note */
	if ((rc = reg_local_verdict(&local, r, sv->commit)) < 0)
		return rc;
	if (local) {
		const char *ls = json_string_value(json_object_get(local, "status"));
		const char *lv = json_string_value(json_object_get(local, "verdict"));
		if (!ts || !tv || !status_agrees(ts, ls) || strcmp(tv, lv) != 0)
			reg_add_line(notes, "pull: %s@%u: the remote claimed status %s, verdict %s; here: %s, %s",
			    tool, v, ts ? ts : "(none)", tv ? tv : "(none)", ls, lv);
		ts = ls;
		tv = lv;
	}
	/* by commit id: the commit list_versions walked to (a lookup by version
	 * would walk down from the tip again, O(versions) per version) */
	if (tg_store_get_file_at(&src, &len, s, sv->commit, "tool.c") < 0) {
		reg_add_line(problems, "store: %s@%u: tool.c unreadable: %s", tool, v,
		    tg_error_last()->message);
		tg_error_clear();
		return 0;
	}
	reg_content_hash(hash, src, len);
	if (!th)
		reg_add_line(problems, "store: %s@%u: the commit has no Toolgate-Content-Hash trailer", tool, v);
	else if (strcmp(th, hash) != 0)
		reg_add_line(problems, "store: %s@%u: tool.c hashes to %.12s but the commit's "
			      "Toolgate-Content-Hash says %.12s", tool, v, hash, th);
	if (strcmp(rh, hash) != 0)
		reg_add_line(problems, "registry: %s@%u: content hash %.12s in the registry, tool.c in the "
			      "store hashes to %.12s", tool, v, rh, hash);
	if (!ts || !status_agrees(ts, rs))
		reg_add_line(problems, "registry: %s@%u: status %s in the registry disagrees with the "
			      "commit's Toolgate-Status: %s", tool, v, rs, ts ? ts : "(none)");
	if (!tv || strcmp(tv, rv) != 0)
		reg_add_line(problems, "registry: %s@%u: verdict %s in the registry disagrees with the "
			      "commit's Toolgate-Verdict: %s", tool, v, rv, tv ? tv : "(none)");
	if (v == sql_active) {
		if (strcmp(rs, "active") != 0 || strcmp(rv, "pass") != 0)
			reg_add_line(problems, "registry: %s@%u is active but did not pass here (status %s, "
				      "verdict %s)", tool, v, rs, rv);
		if (ts && strcmp(ts, "active") && strcmp(ts, "inactive") && strcmp(ts, "pending"))
			reg_add_line(problems, "store: %s@%u is active but its commit says Toolgate-Status: "
				      "%s", tool, v, ts);
		if (tv && strcmp(tv, "pass") != 0)
			reg_add_line(problems, "store: %s@%u is active but its commit says Toolgate-Verdict: "
				      "%s", tool, v, tv);
		if ((nf = failed_tests(r, q, vid)) < 0)
			return nf;
		if (nf > 0)
			reg_add_line(problems, "registry: %s@%u is active but %d of its tests did not pass",
			    tool, v, nf);
	}
	return check_cache(r, tool, v, hash, problems, notes);
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
	sqlite3_stmt *st = q->version;
	tg_store_version_list *l = NULL;
	unsigned store_active = 0, sql_active = 0;
	int64_t id = 0, sql_count = 0;
	tg_store *s;
	size_t i;
	int rc;

	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	rc = tg_store_get_active(&store_active, NULL, s, tool);
	if (rc < 0) {
		reg_add_line(problems, "store: %s: active ref unreadable: %s", tool, tg_error_last()->message);
		tg_error_clear();
	}
	sqlite3_reset(q->tool);
	sqlite3_bind_text(q->tool, 1, tool, -1, SQLITE_STATIC);
	rc = reg_step(q->tool);
	if (rc == SQLITE_ROW) {
		id = sqlite3_column_int64(q->tool, 0);
		sql_active = (unsigned)sqlite3_column_int64(q->tool, 1);
	} else if (rc != SQLITE_DONE) {
		return reg_sqlerr(r, rc, "find tool");
	}
	sqlite3_reset(q->tool);
	if (!id) {
		reg_add_line(problems, "registry: the store has tool %s but the registry does not", tool);
		return 0;
	}
	rc = tg_store_list_versions(&l, s, tool);
	if (rc < 0) {
		reg_add_line(problems, "store: %s: history unreadable: %s", tool, tg_error_last()->message);
		tg_error_clear();
		return 0;
	}
	for (i = 0; i < l->n; i++) {
		const tg_store_version *sv = &l->items[i];
		const char *h = tg_store_version_trailer(sv, "Toolgate-Content-Hash");
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, sv->version);
		rc = reg_step(st);
		if (rc == SQLITE_DONE) {
			reg_add_line(problems, "registry: %s v%u is in the store but not in the registry", tool,
			    sv->version);
			continue;
		}
		if (rc != SQLITE_ROW) {
			rc = reg_sqlerr(r, rc, "read version");
			goto out;
		}
		if (strcmp((const char *)sqlite3_column_text(st, 0), sv->commit) != 0)
			reg_add_line(problems, "registry: %s v%u: commit %.12s in the registry, %.12s in the "
				      "store", tool, sv->version, sqlite3_column_text(st, 0), sv->commit);
		if (h && strcmp((const char *)sqlite3_column_text(st, 1), h) != 0)
			reg_add_line(problems, "registry: %s v%u: content hash differs from the store's", tool,
			    sv->version);
		rc = check_version(r, q, tool, sv, st, sql_active, problems, notes);
		if (rc == 0)
			rc = check_signature(r, tool, sv, problems, sc);
		if (rc < 0)
			goto out;
	}
	*nversions += l->n;
	sqlite3_reset(st);
	st = q->count;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	if ((rc = reg_step(st)) != SQLITE_ROW) {
		rc = reg_sqlerr(r, rc, "count versions");
		goto out;
	}
	sql_count = sqlite3_column_int64(st, 0);
	if ((size_t)sql_count > l->n)
		reg_add_line(problems, "registry: %s has %lld versions in the registry but %zu in the store",
		    tool, (long long)sql_count, l->n);
	if (sql_active != store_active)
		reg_add_line(problems, "registry: %s: active version v%u in the registry, v%u in the store",
		    tool, sql_active, store_active);
	rc = 0;
out:
	sqlite3_reset(q->version);
	sqlite3_reset(q->count);
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

int tg_registry_verify(json_t **out, tg_registry *r)
{
	_cleanup_json_ json_t *problems = json_array(), *notes = json_array(), *res = NULL;
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	tg_store_problem_list *pl = NULL;
	sig_counts sc = { 0, 0, 0 };
	vq q = { NULL, NULL, NULL, NULL };
	tg_store *s = NULL;
	char **names = NULL;
	json_t *rep;
	size_t n = 0, i, nversions = 0;
	int rc, reading = 0;

	*out = NULL;
	if (!problems || !notes)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
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
	if ((rc = vq_prepare(r, &q)) < 0)
		goto out;
	if (!r->in_txn && reg_exec(r, "BEGIN") == 0)
		reading = 1;
	tg_error_clear();
	for (i = 0; i < n; i++) {
		rc = check_tool(r, &q, names[i], problems, notes, &nversions, &sc);
		if (rc < 0)
			goto out;
	}
	if (sc.good || sc.untrusted)
		reg_add_line(notes, "signatures: %zu good (by a trusted signer), %zu valid by keys not in "
			     "trusted_signers, %zu unsigned", sc.good, sc.untrusted, sc.none);
	/* tools the registry has and the store does not */
	rc = reg_prepare(r, &st, "SELECT name FROM tools ORDER BY name");
	if (rc < 0)
		goto out;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int found = 0;
		for (i = 0; i < n && !found; i++)
			found = strcmp(names[i], name) == 0;
		if (!found)
			reg_add_line(problems, "registry: tool %s is not in the store", name);
	}
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "list tools");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (reading) {
		reading = 0;
		if ((rc = reg_exec(r, "COMMIT")) < 0)
			goto out;
	}
	rc = reg_audit_verify(r, problems, notes);
	if (rc < 0)
		goto out;
	rc = reg_calls_unfinished(r, notes);
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
