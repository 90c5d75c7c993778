/*
 * registry/record/archive.c: audit retention (`toolgate log --archive BEFORE`).
 *
 * The oldest entries, up to the last one before BEFORE (an entry number, or
 * a UTC date YYYY-MM-DD), are written to <home>/audit-archive/
 * audit-F-L.jsonl (one JSON object per line with every field of the
 * entry, its prev_hash and hash, exactly as stored), made durable, and only
 * then removed from the table in one transaction that also appends a
 * checkpoint entry "archive" {"from","through","hash","file","sha256",
 * "entries","archives":[every archive so far, this one last]} and records the new start of the chain in meta
 * (audit_archived_through, audit_archived_hash). The chain stays whole: the
 * first entry left links to the last archived hash, which the checkpoint
 * names, and the file verifies on its own (each hash recomputed, each link
 * followed, its SHA-256 recorded in the checkpoint). The append-only
 * trigger is dropped and recreated inside that transaction; nothing else
 * ever deletes an entry.
 *
 * verify: the table's chain must start right after the archived range and
 * link to its hash, the meta start must match the latest checkpoint, and
 * every archive file it lists is checked if present, each linking to the
 * one before (moved off the machine: a note, not a problem).
 */
#include "registry/record/record.h"

#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char zeros[65] =
	"0000000000000000000000000000000000000000000000000000000000000000";

#define ARCHIVE_DIR "audit-archive"
#define ARCHIVE_MAX_FILE (256u << 20)

static const char *trigger_sql =
	"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit"
	" BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;";

/* Parse BEFORE: digits = an entry number, YYYY-MM-DD = a UTC date. */
static int parse_before(const char *s, int64_t *seq, int64_t *when)
{
	struct tm tm = { 0 };
	char *end = NULL;

	*seq = 0;
	*when = 0;
	if (s[0] >= '1' && s[0] <= '9' && strspn(s, "0123456789") == strlen(s) && strlen(s) < 16) {
		*seq = strtoll(s, &end, 10);
		return 0;
	}
	end = strptime(s, "%Y-%m-%d", &tm);
	if (!end || *end || strlen(s) != 10)
		return tg_error_set(TG_ERR_INVALID, "BEFORE: an entry number or a date YYYY-MM-DD "
						    "(UTC)");
	*when = (int64_t)timegm(&tm);
	return 0;
}

int tg_registry_archive(json_t **out, tg_registry *r, const char *before, const tg_actor *who)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *dir = NULL, *rel = NULL, *path = NULL, *text = NULL;
	_cleanup_json_ json_t *d = NULL, *archives = json_array();
	char last_hash[65] = "", sha[65];
	int64_t bseq, bwhen, first = 0, last = 0, n = 0, cp_seq = 0;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	if (!archives)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = parse_before(before, &bseq, &bwhen)) < 0)
		return rc;
	if ((rc = reg_begin(r)) < 0)
		return rc;
	/* the entries to move: from the oldest up to the last one before */
	rc = reg_prepare(r, &st, "SELECT seq, at, actor, event, tool, details, prev_hash, hash "
				 "FROM audit WHERE seq <= (SELECT max(seq) FROM audit WHERE "
				 "(?1 > 0 AND seq < ?1) OR (?2 > 0 AND at < ?2)) ORDER BY seq");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, bseq);
	sqlite3_bind_int64(st, 2, bwhen);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		_cleanup_json_ json_t *e = NULL;
		_cleanup_free_ char *line = NULL;
		size_t ll;
		const char *tool = (const char *)sqlite3_column_text(st, 4);
		const char *det = (const char *)sqlite3_column_text(st, 5);
		e = json_pack("{s:I, s:I, s:s, s:s, s:o, s:o, s:s, s:s}", "seq",
			      (json_int_t)sqlite3_column_int64(st, 0), "at",
			      (json_int_t)sqlite3_column_int64(st, 1), "actor",
			      (const char *)sqlite3_column_text(st, 2), "event",
			      (const char *)sqlite3_column_text(st, 3), "tool",
			      tool ? json_string(tool) : json_null(), "details",
			      det ? json_string(det) : json_null(), "prev_hash",
			      (const char *)sqlite3_column_text(st, 6), "hash",
			      (const char *)sqlite3_column_text(st, 7));
		line = e ? tg_json_dump(e) : NULL;
		if (!line) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto fail;
		}
		ll = strlen(line);
		if (len + ll + 2 > cap) {
			char *p = realloc(text, cap = (len + ll + 2) * 2);
			if (!p) {
				rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
				goto fail;
			}
			text = p;
		}
		memcpy(text + len, line, ll);
		len += ll;
		text[len++] = '\n';
		text[len] = '\0';
		if (!n)
			first = sqlite3_column_int64(st, 0);
		last = sqlite3_column_int64(st, 0);
		snprintf(last_hash, sizeof(last_hash), "%s", sqlite3_column_text(st, 7));
		n++;
	}
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "read the audit log");
		goto fail;
	}
	reg_finalizep(&st);
	st = NULL;
	if (n == 0) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "no audit entries before %s", before);
		goto fail;
	}
	/* the archives so far, from the latest checkpoint (which may be about
	 * to move into this archive itself) */
	rc = reg_prepare(r, &st, "SELECT details FROM audit WHERE event = 'archive' ORDER BY seq "
				 "DESC LIMIT 1");
	if (rc < 0)
		goto fail;
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		_cleanup_json_ json_t *cp = reg_col_json(st, 0);
		json_t *a = json_object_get(cp, "archives");
		if (json_is_array(a))
			json_array_extend(archives, a);
	} else if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "read archive checkpoints");
		goto fail;
	}
	reg_finalizep(&st);
	st = NULL;
	/* the file first, durable; the table changes only once it is there */
	dir = tg_path_join(r->home, ARCHIVE_DIR);
	if (!dir || asprintf(&rel, "%s/audit-%lld-%lld.jsonl", ARCHIVE_DIR, (long long)first,
			     (long long)last) < 0) {
		rel = NULL;
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	path = tg_path_join(r->home, rel);
	if (!path) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((rc = tg_mkdir_p(dir, 0700)) < 0 ||
	    (rc = tg_file_write_atomic(path, text, len, 0600)) < 0)
		goto fail;
	tg_sha256_hex(sha, text, len);
	if ((rc = reg_exec(r, "DROP TRIGGER audit_no_delete")) < 0)
		goto fail;
	rc = reg_prepare(r, &st, "DELETE FROM audit WHERE seq <= ?1");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, last);
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "archive audit entries");
		goto fail;
	}
	if ((rc = reg_exec(r, trigger_sql)) < 0 ||
	    (rc = reg_meta_set_int(r, "audit_archived_through", last)) < 0 ||
	    (rc = reg_meta_set_text(r, "audit_archived_hash", last_hash)) < 0)
		goto fail;
	d = json_pack("{s:I, s:I, s:s, s:s, s:s, s:I}", "from", (json_int_t)first, "through",
		      (json_int_t)last, "hash", last_hash, "file", rel, "sha256", sha, "entries",
		      (json_int_t)n);
	if (d && (json_array_append_new(archives, json_deep_copy(d)) < 0 ||
		  json_object_set(d, "archives", archives) < 0))
		json_decref(TG_TAKE_PTR(d));
	if (!d) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((rc = reg_audit_append(r, who, "archive", NULL, d)) < 0)
		goto fail;
	cp_seq = r->audit_seq_pending;
	if ((rc = reg_commit(r)) < 0)
		return rc;
	*out = json_pack("{s:I, s:I, s:I, s:s, s:s, s:I}", "from", (json_int_t)first, "through",
			 (json_int_t)last, "entries", (json_int_t)n, "file", path, "sha256", sha,
			 "checkpoint", (json_int_t)cp_seq);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}

/* Check one archive file against its checkpoint; *prev is the hash its
 * first entry must link to, advanced to its last hash. */
static void check_file(tg_registry *r, const json_t *cp, char prev[65], json_t *problems,
		       json_t *notes)
{
	const char *rel = json_string_value(json_object_get(cp, "file"));
	const char *want_sha = json_string_value(json_object_get(cp, "sha256"));
	const char *want_hash = json_string_value(json_object_get(cp, "hash"));
	json_int_t from = json_integer_value(json_object_get(cp, "from"));
	json_int_t through = json_integer_value(json_object_get(cp, "through"));
	_cleanup_free_ char *path = NULL, *text = NULL;
	char sha[65], h[65];
	size_t len = 0;
	json_int_t expect = from;
	char *line, *save = NULL;
	int bad = 0;

	if (!rel || !want_sha || !want_hash || strstr(rel, "..") || rel[0] == '/') {
		reg_add_line(problems, "audit: an archive checkpoint is malformed");
		return;
	}
	path = tg_path_join(r->home, rel);
	if (!path)
		return;
	if (tg_file_read(&text, &len, path, ARCHIVE_MAX_FILE) < 0) {
		int missing = tg_error_last()->code == TG_ERR_NOTFOUND;
		tg_error_clear();
		if (missing)
			reg_add_line(notes, "audit: entries %lld..%lld were archived to %s, which is not "
				   "here (moved elsewhere?): not checked",
			    (long long)from, (long long)through, rel);
		else
			reg_add_line(problems, "audit: the archive %s cannot be read", rel);
		snprintf(prev, 65, "%s", want_hash);
		return;
	}
	tg_sha256_hex(sha, text, len);
	if (strcmp(sha, want_sha) != 0) {
		reg_add_line(problems, "audit: the archive %s was modified (its SHA-256 is not the one its "
			      "checkpoint recorded)", rel);
		bad = 1;
	}
	for (line = strtok_r(text, "\n", &save); line && !bad; line = strtok_r(NULL, "\n", &save)) {
		_cleanup_json_ json_t *e = NULL;
		const char *ph, *hh;
		tg_json_limits lim = { 1u << 20, 16 };
		if (tg_json_parse(&e, line, strlen(line), &lim) < 0) {
			tg_error_clear();
			reg_add_line(problems, "audit: the archive %s holds a line that is not JSON", rel);
			bad = 1;
			break;
		}
		ph = json_string_value(json_object_get(e, "prev_hash"));
		hh = json_string_value(json_object_get(e, "hash"));
		reg_audit_entry_hash(h, json_integer_value(json_object_get(e, "seq")),
				     json_integer_value(json_object_get(e, "at")),
				     json_string_value(json_object_get(e, "actor")),
				     json_string_value(json_object_get(e, "event")),
				     json_string_value(json_object_get(e, "tool")),
				     json_string_value(json_object_get(e, "details")), ph ? ph : "");
		if (json_integer_value(json_object_get(e, "seq")) != expect || !ph ||
		    strcmp(ph, prev) != 0 || !hh || strcmp(hh, h) != 0) {
			reg_add_line(problems, "audit: the archive %s is broken at entry %lld", rel,
			    (long long)expect);
			bad = 1;
			break;
		}
		snprintf(prev, 65, "%s", hh);
		expect++;
	}
	if (!bad && (expect != through + 1 || strcmp(prev, want_hash) != 0))
		reg_add_line(problems, "audit: the archive %s does not end at entry %lld as its checkpoint "
			      "says", rel, (long long)through);
	snprintf(prev, 65, "%s", want_hash);
}

int reg_archive_verify(tg_registry *r, int64_t *expect_seq, char prev[65], json_t *problems,
		       json_t *notes)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *meta_hash = NULL;
	char chain[65];
	int64_t through = 0, last_cp = 0;
	int rc, ncp = 0;

	*expect_seq = 1;
	memcpy(prev, zeros, 65);
	memcpy(chain, zeros, 65);
	if ((rc = reg_meta_get_int(r, "audit_archived_through", &through)) < 0 ||
	    (rc = reg_meta_get_text(r, "audit_archived_hash", &meta_hash)) < 0)
		return rc;
	/* the latest checkpoint lists every archive so far, oldest first */
	rc = reg_prepare(r, &st, "SELECT details FROM audit WHERE event = 'archive' ORDER BY seq "
				 "DESC LIMIT 1");
	if (rc < 0)
		return rc;
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		_cleanup_json_ json_t *cp = reg_col_json(st, 0);
		json_t *a;
		size_t i;
		json_array_foreach(json_object_get(cp, "archives"), i, a) {
			check_file(r, a, chain, problems, notes);
			ncp++;
		}
		last_cp = json_integer_value(json_object_get(cp, "through"));
	} else if (rc != SQLITE_DONE) {
		return reg_sqlerr(r, rc, "read archive checkpoints");
	}
	if (through == 0 && ncp == 0)
		return 0;
	if (through != last_cp || !meta_hash || strcmp(meta_hash, chain) != 0) {
		reg_add_line(problems, "audit: the archived range (through entry %lld) does not match the "
			      "last archive checkpoint (through entry %lld)",
		    (long long)through, (long long)last_cp);
	}
	reg_add_line(notes, "audit: entries 1..%lld are archived (%d archive file%s)", (long long)through,
	    ncp, ncp == 1 ? "" : "s");
	*expect_seq = through + 1;
	if (meta_hash && strlen(meta_hash) == 64)
		memcpy(prev, meta_hash, 65);
	return 0;
}
