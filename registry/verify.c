/*
 * registry/verify.c: `toolgate verify`. Three checks, every disagreement a
 * line in "problems": the store's own verify (refs resolve, every version
 * commit complete and numbered in sequence), the registry against the store
 * (same versions, commits, content hashes and active pointers; nothing in
 * SQLite the store does not hold), and the audit chain with its two heads.
 * "notes" says what the re-index on open repaired and what a rebuild lost.
 */
#include "reg_internal.h"

#include <string.h>

static void add(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *arr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(arr, json_string(buf));
}

static int check_tool(tg_registry *r, const char *tool, json_t *problems, size_t *nversions)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
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
		add(problems, "store: %s: active ref unreadable: %s", tool, tg_error_last()->message);
		tg_error_clear();
	}
	rc = reg_tool_id(r, tool, 0, &id);
	if (rc < 0)
		return rc;
	if (!id) {
		add(problems, "registry: the store has tool %s but the registry does not", tool);
		return 0;
	}
	rc = tg_store_list_versions(&l, s, tool);
	if (rc < 0) {
		add(problems, "store: %s: history unreadable: %s", tool, tg_error_last()->message);
		tg_error_clear();
		return 0;
	}
	rc = reg_prepare(r, &st, "SELECT commit_id, content_hash FROM versions WHERE tool_id = ?1 "
				 "AND version = ?2");
	if (rc < 0)
		goto out;
	for (i = 0; i < l->n; i++) {
		const tg_store_version *sv = &l->items[i];
		const char *h = tg_store_version_trailer(sv, "Toolgate-Content-Hash");
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, sv->version);
		rc = reg_step(st);
		if (rc == SQLITE_DONE) {
			add(problems, "registry: %s v%u is in the store but not in the registry", tool,
			    sv->version);
			continue;
		}
		if (rc != SQLITE_ROW) {
			rc = reg_sqlerr(r, rc, "read version");
			goto out;
		}
		if (strcmp((const char *)sqlite3_column_text(st, 0), sv->commit) != 0)
			add(problems, "registry: %s v%u: commit %.12s in the registry, %.12s in the "
				      "store", tool, sv->version, sqlite3_column_text(st, 0), sv->commit);
		if (h && strcmp((const char *)sqlite3_column_text(st, 1), h) != 0)
			add(problems, "registry: %s v%u: content hash differs from the store's", tool,
			    sv->version);
	}
	*nversions += l->n;
	sqlite3_finalize(st);
	st = NULL;
	rc = reg_prepare(r, &st, "SELECT count(*) FROM versions WHERE tool_id = ?1");
	if (rc < 0)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = reg_step(st)) != SQLITE_ROW) {
		rc = reg_sqlerr(r, rc, "count versions");
		goto out;
	}
	sql_count = sqlite3_column_int64(st, 0);
	if ((size_t)sql_count > l->n)
		add(problems, "registry: %s has %lld versions in the registry but %zu in the store",
		    tool, (long long)sql_count, l->n);
	rc = reg_active_version(r, id, &sql_active);
	if (rc < 0)
		goto out;
	if (sql_active != store_active)
		add(problems, "registry: %s: active version v%u in the registry, v%u in the store",
		    tool, sql_active, store_active);
	rc = 0;
out:
	tg_store_version_list_free(l);
	return rc;
}

int tg_registry_verify(json_t **out, tg_registry *r)
{
	_cleanup_json_ json_t *problems = json_array(), *notes = json_array(), *res = NULL;
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	tg_store_problem_list *pl = NULL;
	tg_store *s;
	char **names = NULL;
	json_t *rep;
	size_t n = 0, i, nversions = 0;
	int rc;

	*out = NULL;
	if (!problems || !notes)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	/* the full comparison, whatever the fingerprint said at open: first the
	 * re-index the open skipped (its repairs and problems are reported) */
	if (!r->reindexed) {
		if ((rc = reg_reindex(r, 0)) < 0)
			return tg_error_prefix("re-index from the store");
		r->reindexed = 1;
	}
	rc = tg_store_verify(&pl, s);
	if (pl) {
		for (i = 0; i < pl->n; i++)
			add(problems, "store: %s", pl->items[i]);
		tg_store_problem_list_free(pl);
	} else if (rc < 0) {
		add(problems, "store: verify could not run: %s", tg_error_last()->message);
	}
	tg_error_clear();
	rc = tg_store_list_tools(&names, &n, s);
	if (rc < 0)
		return tg_error_prefix("store");
	for (i = 0; i < n; i++) {
		rc = check_tool(r, names[i], problems, &nversions);
		if (rc < 0) {
			tg_store_free_names(names, n);
			return rc;
		}
	}
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
			add(problems, "registry: tool %s is not in the store", name);
	}
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "list tools");
		goto out;
	}
	rc = reg_audit_verify(r, problems, notes);
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
	tg_store_free_names(names, n);
	return rc;
}
