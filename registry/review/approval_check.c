/*
 * registry/review/approval_check.c: does the approval of a version stand?
 * An approval is for one version of one tool: the approval hash of that
 * version (sha256 over the canonical tool.json and tool.c read back from
 * the store, recomputed every time, never taken from a trailer or a
 * registry column) and its exact capability set. A version that asks for
 * no capability needs none; any other version is usable (activated, rolled
 * back to, called) only while an approval of it stands and no denial does.
 * Here: the capability set of a manifest, the approval hash, the facts of
 * a version recomputed from the store, and the check that activation and
 * calls make (approval.c records the decisions themselves). Capabilities
 * are opaque strings here (workspace:read, workspace:write, and whatever
 * else a manifest's capability set holds, e.g. the bridge's tools:NAME /
 * host:NAME).
 *
 * Recomputing the hash opens the store (libgit2: ~10 ms), too slow for
 * every call. So a full check that finds the approval standing notes in
 * its row (approvals.verified) the store's fingerprint taken before it read
 * the store (tg_store_fingerprint: stat calls only; any ref update changes
 * it), the tool and version, and the version row's build content hash. While both are unchanged
 * the store holds the same commits, hence the same tool.json and tool.c
 * (objects are content-addressed and libgit2 verifies them), and the check
 * needs no store access; any change to the store makes the next check a
 * full one.
 */
#include "registry/review/review.h"

#include <string.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *reg_caps_norm(const json_t *caps)
{
	_cleanup_free_ const char **v = NULL;
	size_t n = json_array_size(caps), i, k = 0;
	json_t *c, *out;

	if (caps && !json_is_array(caps))
		return NULL;
	out = json_array();
	v = calloc(n + 1, sizeof(*v));
	if (!out || !v) {
		json_decref(out);
		return NULL;
	}
	json_array_foreach(caps, i, c) {
		if (!json_is_string(c)) {
			json_decref(out);
			return NULL;
		}
		v[k++] = json_string_value(c);
	}
	qsort(v, k, sizeof(*v), cmp_str);
	for (i = 0; i < k; i++) {
		if (i > 0 && strcmp(v[i], v[i - 1]) == 0)
			continue;
		if (json_array_append_new(out, json_string(v[i])) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

json_t *reg_caps_of(const json_t *manifest)
{
	return reg_caps_norm(json_object_get(manifest, "capabilities"));
}

/* Same set of strings, whatever the order and repeats. */
static int caps_equal(const json_t *a, const json_t *b)
{
	_cleanup_json_ json_t *ca = reg_caps_norm(a), *cb = reg_caps_norm(b);

	return ca && cb && json_equal(ca, cb);
}

/* The canonical form is frozen: jansson's own compact, sorted, ASCII text
 * with its "%.17g" reals (0.77000000000000002), never tg_json_dump's
 * shortest spelling, so approvals recorded before reals were respelled
 * still match (tests/registry/review_git.sh). */
int reg_approval_hash(char out[65], const json_t *manifest, const char *source, size_t len)
{
	_cleanup_free_ char *m = json_dumps(manifest, JSON_COMPACT | JSON_SORT_KEYS |
							     JSON_ENSURE_ASCII);
	char hdr[64];
	tg_sha256 s;

	if (!m)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	snprintf(hdr, sizeof(hdr), "toolgate-approval-v1\n%zu\n", strlen(m));
	tg_sha256_init(&s);
	tg_sha256_update(&s, hdr, strlen(hdr));
	tg_sha256_update(&s, m, strlen(m));
	tg_sha256_update(&s, source, len);
	tg_sha256_final_hex(&s, out);
	return 0;
}

int reg_version_facts(reg_facts *out, tg_registry *r, const char *tool, unsigned v)
{
	_cleanup_free_ char *mj = NULL, *src = NULL;
	_cleanup_json_ json_t *m = NULL;
	tg_json_limits lim = { 16u << 20, 128 };
	size_t mlen = 0, slen = 0;
	tg_store *s;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if (tg_store_get_file(&mj, &mlen, s, tool, v, "tool.json") < 0 ||
	    tg_store_get_file(&src, &slen, s, tool, v, "tool.c") < 0)
		return tg_error_prefix("store: %s v%u", tool, v);
	if (tg_json_parse(&m, mj, mlen, &lim) < 0 || !json_is_object(m))
		return tg_error_set(TG_ERR_INTERNAL, "store: %s v%u: tool.json is not a JSON object",
				    tool, v);
	if ((rc = reg_approval_hash(out->approval_hash, m, src, slen)) < 0)
		return rc;
	reg_content_hash(out->content_hash, src, slen);
	out->caps = reg_caps_of(m);
	if (!out->caps)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

/* The approval rows of version v: the first whose capabilities equal caps
 * and (verified != NULL) whose verified note is that, or (hash != NULL)
 * whose approval hash is that. *out_id = 0 when none. */
static int find_approval(int64_t *out_id, tg_registry *r, int64_t tool_id, unsigned v,
			 const json_t *caps, const char *verified, const char *hash)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	*out_id = 0;
	rc = reg_prepare(r, &st, "SELECT a.id, a.capabilities FROM approvals a JOIN versions v ON "
				 "v.id = a.version_id WHERE v.tool_id = ?1 AND v.version = ?2 AND "
				 "a.version = ?2 AND a.approval_hash != '' AND "
				 "(?3 IS NULL OR a.verified = ?3) AND (?4 IS NULL OR "
				 "a.approval_hash = ?4) ORDER BY a.id DESC");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v);
	reg_bind_text(st, 3, verified);
	reg_bind_text(st, 4, hash);
	while (!*out_id && (rc = reg_step(st)) == SQLITE_ROW) {
		_cleanup_json_ json_t *ac = reg_col_json(st, 1);
		if (caps_equal(ac, caps))
			*out_id = sqlite3_column_int64(st, 0);
	}
	if (!*out_id && rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read approvals");
	return 0;
}

/* Note on an approval row that it was checked against this store state
 * (best effort: it only saves the next check a store read). */
static void note_verified(tg_registry *r, int64_t id, const char *verified)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;

	/* an autocommit write under synchronous = NORMAL: no fsync */
	if (reg_prepare(r, &st, "UPDATE approvals SET verified = ?2 WHERE id = ?1") == 0) {
		sqlite3_bind_int64(st, 1, id);
		reg_bind_text(st, 2, verified);
		reg_step(st);
	}
	tg_error_clear();
}

int reg_approval_check(reg_approval *out, tg_registry *r, int64_t tool_id, const char *tool,
		       unsigned v)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *row_caps = NULL;
	_cleanup_free_ char *status = NULL, *row_hash = NULL;
	char fp[65], verified[180] = "";
	int64_t aid = 0;
	reg_facts f;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = reg_prepare(r, &st, "SELECT status, capabilities, content_hash FROM versions "
				 "WHERE tool_id = ?1 AND version = ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, v);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", tool, v);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read version");
	status = reg_col_strdup(st, 0);
	row_caps = reg_col_json(st, 1);
	row_hash = reg_col_strdup(st, 2);
	reg_finalizep(&st);
	st = NULL;
	if (!status || !row_hash)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (strcmp(status, "denied") == 0) {
		snprintf(out->why, sizeof(out->why), "%s v%u was denied by a person: it can never "
			 "be activated", tool, v);
		return 0;
	}
	if (json_array_size(row_caps) == 0) {
		out->stands = 1; /* asks for nothing: needs no approval */
		return 0;
	}
	out->needs = 1;
	/* the store unchanged since a full check found this approval standing? */
	if (tg_store_fingerprint(fp, r->store_path) == 0)
		snprintf(verified, sizeof(verified), "%s:%lld:%u:%s", fp, (long long)tool_id, v,
			 row_hash);
	tg_error_clear();
	if (verified[0]) {
		rc = find_approval(&aid, r, tool_id, v, row_caps, verified, NULL);
		if (rc < 0)
			return rc;
		if (aid) {
			out->stands = 1;
			return 0;
		}
	}
	/* the code and manifest as the store holds them now */
	rc = reg_version_facts(&f, r, tool, v);
	if (rc < 0)
		return rc;
	memcpy(out->approval_hash, f.approval_hash, sizeof(out->approval_hash));
	if (!caps_equal(f.caps, row_caps) || strcmp(f.content_hash, row_hash) != 0) {
		json_decref(f.caps);
		out->mismatch = 1;
		snprintf(out->why, sizeof(out->why), "%s v%u: the registry's record does not match "
			 "the stored version (capabilities or content hash differ)", tool, v);
		return 0;
	}
	rc = find_approval(&aid, r, tool_id, v, f.caps, NULL, f.approval_hash);
	if (rc < 0)
		goto out;
	out->stands = aid != 0;
	if (aid && verified[0])
		note_verified(r, aid, verified);
	rc = 0;
	if (!out->stands)
		snprintf(out->why, sizeof(out->why), "%s v%u asks for capabilities that no person "
			 "approved for this exact version (approval hash %.12s): toolgate approve "
			 "%s@%u", tool, v, f.approval_hash, tool, v);
out:
	json_decref(f.caps);
	return rc;
}

