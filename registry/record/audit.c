/*
 * registry/record/audit.c: the append-only, hash-chained audit log.
 *
 * Entry n stores hash_n = SHA-256("toolgate-audit-v1" | n | time | actor |
 * event | tool | details | hash_{n-1}), every field length-prefixed so no two
 * entries encode alike; entry 1 links to 64 zeros. Triggers refuse UPDATE and
 * DELETE on the table. An edited entry breaks its own hash, a deleted middle
 * entry breaks the sequence and the next link. A deleted LAST entry leaves a
 * valid shorter chain, so the head (seq, hash) is kept twice outside the
 * table: in the meta table (same transaction) and in <home>/audit.anchor, a
 * file advanced monotonically (under flock) after every commit that appended.
 * verify compares the chain against both. Limits (docs/REGISTRY.md): whoever
 * can write the home can recompute the whole chain and both heads; the chain
 * detects edits made with ordinary tools, not a determined local root.
 */
#include "registry/record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>

static const char zero_hash[65] =
	"0000000000000000000000000000000000000000000000000000000000000000";

char *reg_actor_string(const tg_actor *who)
{
	const char *kind = who && who->kind ? who->kind : "system";
	char *s = NULL;

	size_t i;

	if (who && who->session && who->session[0]) {
		if (asprintf(&s, "%.32s:%.128s", kind, who->session) < 0)
			return NULL;
	} else {
		s = strndup(kind, 32);
		if (!s)
			return NULL;
	}
	/* the session id may come from a peer: keep it printable and plain */
	for (i = 0; s[i]; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == ':' || c == '-' || c == '_' || c == '.'))
			s[i] = '_';
	}
	return s;
}

/* Decimal n followed by end into the tail of buf (no snprintf: verify
 * hashes every entry, eight fields each): the text, its length in *len. */
static const char *put_dec(char buf[32], unsigned long long n, char end, size_t *len)
{
	char *p = buf + 32;

	*--p = end;
	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	*len = (size_t)(buf + 32 - p);
	return p;
}

static void put_field(tg_sha256 *s, const char *v)
{
	char buf[32];
	const char *t;
	size_t n, k;

	if (!v) {
		tg_sha256_update(s, "-;", 2);
		return;
	}
	n = strlen(v);
	t = put_dec(buf, n, ':', &k);
	tg_sha256_update(s, t, k);
	tg_sha256_update(s, v, n);
	tg_sha256_update(s, ";", 1);
}

/* A signed number as put_field puts its decimal text ("%lld"). */
static void put_int_field(tg_sha256 *s, long long v)
{
	char buf[32], field[34];
	const char *t;
	size_t k;

	t = put_dec(buf, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, '\0', &k);
	field[0] = '-';
	memcpy(field + (v < 0), t, k);
	put_field(s, field);
}

void reg_audit_entry_hash(char out[65], int64_t seq, int64_t at, const char *actor,
			  const char *event, const char *tool, const char *details,
			  const char *prev)
{
	tg_sha256 s;

	tg_sha256_init(&s);
	put_field(&s, "toolgate-audit-v1");
	put_int_field(&s, (long long)seq);
	put_int_field(&s, (long long)at);
	put_field(&s, actor);
	put_field(&s, event);
	put_field(&s, tool);
	put_field(&s, details);
	put_field(&s, prev);
	tg_sha256_final_hex(&s, out);
}

/* Insert entry seq linked to prev; its hash into hash. */
static int insert_entry(tg_registry *r, int64_t seq, const char *actor, const char *event,
			const char *tool, const char *det, const json_t *dj, const char prev[65],
			char hash[65])
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int64_t at = tg_time_now();
	int rc;

	reg_audit_entry_hash(hash, seq, at, actor, event, tool, det, prev);
	rc = reg_prepare(r, &st, "INSERT INTO audit(seq, at, actor, event, tool, details, "
				 "prev_hash, hash) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, seq);
	sqlite3_bind_int64(st, 2, at);
	reg_bind_text(st, 3, actor);
	reg_bind_text(st, 4, event);
	reg_bind_text(st, 5, tool);
	reg_bind_text(st, 6, det);
	reg_bind_text(st, 7, prev);
	reg_bind_text(st, 8, hash);
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "append audit entry");
	reg_audit_mirror_add(r, &(reg_mirror_fields){ seq, at, actor, event, tool, hash, dj });
	return 0;
}

/* The head the table ends at: its last entry, or after an archive that
 * emptied it the last archived entry (archive.c); 0 and zeros when empty. */
static int read_head(tg_registry *r, int64_t *seq, char prev[65])
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *ah = NULL;
	int rc;

	*seq = 0;
	memcpy(prev, zero_hash, 65);
	rc = reg_prepare(r, &st, "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1");
	if (rc < 0)
		return rc;
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(st, 1);
		*seq = sqlite3_column_int64(st, 0);
		if (h && strlen(h) == 64)
			memcpy(prev, h, 65);
		return 0;
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read audit head");
	if ((rc = reg_meta_get_int(r, "audit_archived_through", seq)) < 0 ||
	    (rc = reg_meta_get_text(r, "audit_archived_hash", &ah)) < 0)
		return rc;
	if (ah && strlen(ah) == 64)
		memcpy(prev, ah, 65);
	return 0;
}

int reg_audit_append(tg_registry *r, const tg_actor *who, const char *event,
		     const char *tool, const json_t *details)
{
	_cleanup_free_ char *actor = reg_actor_string(who);
	_cleanup_free_ char *det = details ? tg_json_dump(details) : NULL;
	_cleanup_json_ json_t *brk = NULL;
	char prev[65], hash[65];
	int64_t seq = 0;
	int rc, placeholder = 0;

	if (!actor || (details && !det))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!r->in_txn)
		return tg_error_set(TG_ERR_INTERNAL, "audit append outside a transaction");
	if ((rc = read_head(r, &seq, prev)) < 0)
		return rc;
	/* a head that disagrees with meta or the anchor is recorded before
	 * anything chains onto it (audit_guard.c) */
	if ((rc = reg_audit_guard(r, seq, prev, &brk, &placeholder)) < 0)
		return rc;
	if (placeholder && reg_audit_anchor_write(r, 0, NULL) < 0)
		return tg_error_prefix("audit anchor");
	if (rc > 0) {
		_cleanup_free_ char *bd = tg_json_dump(brk);
		if (!bd)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		if ((rc = insert_entry(r, ++seq, "system", "chain_break", NULL, bd, brk, prev,
					hash)) < 0)
			return rc;
		memcpy(prev, hash, sizeof(hash));
	}
	if ((rc = insert_entry(r, ++seq, actor, event, tool, det, details, prev, hash)) < 0)
		return rc;
	if ((rc = reg_meta_set_int(r, "audit_seq", seq)) < 0 ||
	    (rc = reg_meta_set_text(r, "audit_head", hash)) < 0)
		return rc;
	r->audit_seq_pending = seq;
	memcpy(r->audit_hash_pending, hash, sizeof(hash));
	return 0;
}

/* The anchor file: {"db_id","seq","hash"}; *found = 0 when absent. */
static int anchor_read(tg_registry *r, json_t **out, int *found)
{
	int rc;

	*out = NULL;
	*found = 0;
	if (access(r->anchor_path, F_OK) != 0) {
		if (errno == ENOENT)
			return 0;
		return tg_error_errno(TG_ERR_IO, errno, "%s", r->anchor_path);
	}
	rc = tg_json_parse_file(out, r->anchor_path, NULL);
	if (rc < 0)
		return rc;
	*found = 1;
	return 0;
}

/* The anchor is one fixed-size record (REG_ANCHOR_BYTES: the JSON object
 * padded with spaces, then a newline), rewritten in place under flock on
 * the file itself, without an fsync of its own: a write of one sector is
 * not torn, and a power loss before the page cache reaches the disk leaves
 * an older record, which only lags behind the log (accepted by verify). A new file's folder
 * entry is fsynced once. Older toolgate versions wrote it by rename; such a
 * file is simply overwritten in place. */
#define REG_ANCHOR_BYTES 256

int reg_audit_anchor_update(tg_registry *r)
{
	return reg_audit_anchor_write(r, r->audit_seq_pending, r->audit_hash_pending);
}

/* The record written into fd, which the caller holds LOCK_EX on. */
static int anchor_put(tg_registry *r, int fd, int64_t seq, const char *hash)
{
	_cleanup_json_ json_t *cur = NULL, *next = NULL;
	_cleanup_free_ char *text = NULL;
	char rec[REG_ANCHOR_BYTES], old[REG_ANCHOR_BYTES * 4];
	tg_json_limits lim = { sizeof(old), 8 };
	ssize_t n;
	size_t len;

	n = pread(fd, old, sizeof(old), 0);
	if (n > 0 && tg_json_parse(&cur, old, (size_t)n, &lim) < 0)
		tg_error_clear(); /* a damaged anchor is replaced; verify reports it before */
	if (cur && json_is_object(cur)) {
		const char *id = json_string_value(json_object_get(cur, "db_id"));
		json_int_t have = json_integer_value(json_object_get(cur, "seq"));
		if (id && strcmp(id, r->db_id) == 0 && have >= seq)
			return 0; /* monotonic: never moved back */
	}
	next = json_pack("{s:s, s:I, s:s}", "db_id", r->db_id, "seq", (json_int_t)seq, "hash",
			 hash ? hash : zero_hash);
	text = next ? tg_json_dump(next) : NULL;
	if (!text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	len = strlen(text);
	if (len >= sizeof(rec))
		return tg_error_set(TG_ERR_INTERNAL, "audit anchor record too long");
	memset(rec, ' ', sizeof(rec));
	memcpy(rec, text, len);
	rec[sizeof(rec) - 1] = '\n';
	if (pwrite(fd, rec, sizeof(rec), 0) != (ssize_t)sizeof(rec))
		return tg_error_errno(TG_ERR_IO, errno ? errno : EIO, "write %s", r->anchor_path);
	if (n > (ssize_t)sizeof(rec) && ftruncate(fd, sizeof(rec)) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "truncate %s", r->anchor_path);
	return 0;
}

int reg_audit_anchor_write(tg_registry *r, int64_t seq, const char *hash)
{
	int fd = -1, created = 0, rc;

	/* held open by the handle, the name looked up again (audit_guard.c) */
	rc = reg_anchor_fd(r, 1, 1, &fd, &created);
	if (rc == 2)
		return tg_error_set(TG_ERR_IO, "%s: not a regular file", r->anchor_path);
	if (rc <= 0)
		return rc < 0 ? rc : tg_error_set(TG_ERR_IO, "%s: cannot be made", r->anchor_path);
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR)
			return tg_error_errno(TG_ERR_IO, errno, "lock %s", r->anchor_path);
	}
	rc = anchor_put(r, fd, seq, hash);
	(void)flock(fd, LOCK_UN);
	if (rc < 0)
		return rc;
	/* No fdatasync: the entries it names were made durable first (their
	 * commit passed the durability barrier, commit.c), so after a power
	 * loss the record can only lag behind the log, which verify accepts;
	 * a registry.db deleted or emptied without a crash meets the record
	 * in the page cache. */
	if (created) {
		_cleanup_close_ int dfd = open(r->home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0)
			(void)fsync(dfd);
	}
	return 0;
}

void reg_add_line(json_t *arr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(arr, json_string(buf));
}

/* A chain_break entry (audit_guard.c) is a problem for good: what an
 * append found, in the entry's own words. */
static void report_break(json_t *problems, int64_t seq, const char *details)
{
	_cleanup_json_ json_t *d = NULL;
	char text[768] = "";
	size_t i, len = 0;
	json_t *p;

	if (details && tg_json_parse(&d, details, strlen(details), NULL) < 0)
		tg_error_clear();
	json_array_foreach(json_object_get(d, "problems"), i, p) {
		const char *t = json_string_value(p);
		if (t && len < sizeof(text))
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s",
						i ? "; " : "", t);
	}
	reg_add_line(problems, "audit: entry %lld records a broken chain found at an append: %s",
		     (long long)seq, text[0] ? text : "(no details)");
}

int reg_audit_verify(tg_registry *r, int64_t start_seq, const char start_prev[65],
		     json_t *problems, json_t *notes)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *anchor = NULL;
	_cleanup_free_ char *meta_head = NULL, *rebuilt = NULL;
	char prev[65], hash[65], anchor_entry_hash[65] = "";
	int64_t expect = start_seq, meta_seq = 0, last = 0, anchor_seq = 0;
	const char *anchor_hash = NULL, *anchor_id = NULL;
	int found = 0, rc, broken = 0;

	memcpy(prev, start_prev, sizeof(prev));
	rc = anchor_read(r, &anchor, &found);
	if (rc < 0) {
		reg_add_line(problems, "audit: anchor file unreadable: %s", tg_error_last()->message);
		tg_error_clear();
	} else if (found) {
		anchor_id = json_string_value(json_object_get(anchor, "db_id"));
		anchor_hash = json_string_value(json_object_get(anchor, "hash"));
		anchor_seq = json_integer_value(json_object_get(anchor, "seq"));
		if (!anchor_id || !anchor_hash || anchor_seq < 0) {
			reg_add_line(problems, "audit: anchor file %s is malformed", r->anchor_path);
			found = 0;
		} else if (strcmp(anchor_id, r->db_id) != 0) {
			reg_add_line(problems, "audit: the anchor file belongs to another registry "
					      "database (%.32s, this one is %s): registry.db was replaced",
				    anchor_id, r->db_id);
			found = 0;
		}
	}
	last = expect - 1;
	if (found && anchor_seq == last)
		snprintf(anchor_entry_hash, sizeof(anchor_entry_hash), "%s", prev);
	rc = reg_prepare(r, &st, "SELECT seq, at, actor, event, tool, details, prev_hash, hash "
				 "FROM audit ORDER BY seq");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		const char *stored_prev = (const char *)sqlite3_column_text(st, 6);
		const char *stored = (const char *)sqlite3_column_text(st, 7);

		if (seq != expect) {
			reg_add_line(problems, "audit: entries %lld..%lld are missing (deleted)",
				    (long long)expect, (long long)seq - 1);
			broken = 1;
		}
		if (!stored_prev || strcmp(stored_prev, prev) != 0) {
			reg_add_line(problems, "audit: entry %lld does not link to the entry before it",
				    (long long)seq);
			broken = 1;
		}
		reg_audit_entry_hash(hash, seq, sqlite3_column_int64(st, 1),
			   (const char *)sqlite3_column_text(st, 2),
			   (const char *)sqlite3_column_text(st, 3),
			   (const char *)sqlite3_column_text(st, 4),
			   (const char *)sqlite3_column_text(st, 5), stored_prev);
		if (!stored || strcmp(stored, hash) != 0) {
			reg_add_line(problems, "audit: entry %lld was modified (its hash does not match "
					      "its content)", (long long)seq);
			broken = 1;
		}
		if (sqlite3_column_text(st, 3) &&
		    strcmp((const char *)sqlite3_column_text(st, 3), "chain_break") == 0)
			report_break(problems, seq, (const char *)sqlite3_column_text(st, 5));
		if (found && seq == anchor_seq)
			snprintf(anchor_entry_hash, sizeof(anchor_entry_hash), "%s", stored ? stored : "");
		memcpy(prev, stored && strlen(stored) == 64 ? stored : hash, 65);
		last = seq;
		expect = seq + 1;
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read audit log");
	if ((rc = reg_meta_get_int(r, "audit_seq", &meta_seq)) < 0 ||
	    (rc = reg_meta_get_text(r, "audit_head", &meta_head)) < 0)
		return rc;
	if (meta_seq != last)
		reg_add_line(problems, "audit: the log ends at entry %lld but its recorded head is "
				      "entry %lld (entries deleted or added outside toolgate)",
			    (long long)last, (long long)meta_seq);
	else if (last > 0 && (!meta_head || strcmp(meta_head, prev) != 0))
		reg_add_line(problems, "audit: the last entry does not match the recorded head hash");
	if (found) {
		if (anchor_seq > last)
			reg_add_line(problems, "audit: the anchor records entry %lld but the log ends at "
					      "entry %lld (entries deleted)",
				    (long long)anchor_seq, (long long)last);
		else if (strcmp(anchor_entry_hash, anchor_hash) != 0)
			reg_add_line(problems, "audit: entry %lld does not match the anchor's hash",
				    (long long)anchor_seq);
	} else if (last > 0 && !anchor_id) {
		reg_add_line(problems, "audit: the anchor file %s is missing", r->anchor_path);
	}
	(void)broken;
	rc = reg_meta_get_text(r, "rebuilt_at", &rebuilt);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		_cleanup_free_ char *ack = NULL;
		int acked = reg_meta_get_text(r, "rebuild_acknowledged", &ack);
		if (acked < 0)
			return acked;
		/* a rebuild lost history: a problem until a person says so */
		if (acked > 0 && strcmp(ack, rebuilt) == 0)
			reg_add_line(notes, "registry.db was rebuilt from the store at %s (unix "
					   "time): the audit and call logs from before that are lost "
					   "(acknowledged)", rebuilt);
		else {
			int64_t lost = 0;
			char had[96] = "";
			if ((rc = reg_meta_get_int(r, "rebuilt_lost_entries", &lost)) < 0)
				return rc;
			if (lost > 0)
				snprintf(had, sizeof(had), " (the anchor recorded %lld entries)",
					 (long long)lost);
			reg_add_line(problems, "registry.db was rebuilt from the store at %s (unix "
					      "time): the audit and call logs from before that are "
					      "lost%s; versions and active pointers were re-indexed "
					      "from git (see the registry_rebuilt entry in toolgate "
					      "log; acknowledge with toolgate verify "
					      "--acknowledge-rebuild)",
				    rebuilt, had);
		}
	}
	reg_add_line(notes, "audit log: %lld entries checked", (long long)last);
	return 0;
}

int reg_audit_note_rebuild(tg_registry *r, const tg_actor *who)
{
	_cleanup_json_ json_t *anchor = NULL, *details = NULL;
	char at[32];
	int found = 0, rc;

	rc = anchor_read(r, &anchor, &found);
	if (rc < 0) {
		tg_error_clear();
		found = 0;
	}
	details = json_object();
	if (!details)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (found && json_is_object(anchor)) {
		json_int_t lost = json_integer_value(json_object_get(anchor, "seq"));
		json_object_set(details, "previous_audit_head", anchor);
		if ((rc = reg_meta_set_int(r, "rebuilt_lost_entries", (int64_t)lost)) < 0)
			return rc;
	}
	snprintf(at, sizeof(at), "%lld", (long long)tg_time_now());
	if ((rc = reg_meta_set_text(r, "rebuilt_at", at)) < 0)
		return rc;
	return reg_audit_append(r, who, "registry_rebuilt", NULL, details);
}

int tg_registry_acknowledge_rebuild(json_t **out, tg_registry *r, const tg_actor *who)
{
	_cleanup_free_ char *rebuilt = NULL, *ack = NULL;
	_cleanup_json_ json_t *d = NULL;
	int rc;

	*out = NULL;
	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = reg_meta_get_text(r, "rebuilt_at", &rebuilt)) < 0)
		goto fail;
	if (rc == 0) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "registry.db was never rebuilt: nothing to "
						   "acknowledge");
		goto fail;
	}
	if ((rc = reg_meta_get_text(r, "rebuild_acknowledged", &ack)) < 0)
		goto fail;
	if (rc > 0 && strcmp(ack, rebuilt) == 0) {
		rc = tg_error_set(TG_ERR_EXISTS, "the rebuild at %s is already acknowledged",
				  rebuilt);
		goto fail;
	}
	d = json_pack("{s:s}", "rebuilt_at", rebuilt);
	if (!d) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((rc = reg_meta_set_text(r, "rebuild_acknowledged", rebuilt)) < 0 ||
	    (rc = reg_audit_append(r, who, "rebuild_acknowledged", NULL, d)) < 0)
		goto fail;
	if ((rc = reg_commit(r)) < 0)
		return rc;
	*out = json_pack("{s:s}", "rebuilt_at", rebuilt);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}

int reg_audit_commit(tg_registry *r, const tg_actor *who, const char *event,
		     const char *tool, const json_t *details)
{
	int rc = details ? reg_audit_append(r, who, event, tool, details)
			 : tg_error_set(TG_ERR_NOMEM, "out of memory");

	if (rc < 0) {
		reg_rollback(r);
		return rc;
	}
	return reg_commit(r);
}

int tg_registry_audit(tg_registry *r, const tg_actor *who, const char *event,
		      const char *tool, const json_t *details)
{
	int rc;

	if (!event || !event[0] || strlen(event) > 64)
		return tg_error_set(TG_ERR_INVALID, "audit event: must be 1 to 64 bytes");
	rc = reg_begin(r);
	if (rc < 0)
		return rc;
	rc = reg_audit_append(r, who, event, tool, details); /* details may be NULL here */
	if (rc < 0) {
		reg_rollback(r);
		return rc;
	}
	return reg_commit(r);
}

int reg_audit_nosync(tg_registry *r, const tg_actor *who, const char *event, const char *tool,
		     const json_t *details)
{
	int rc = reg_begin(r);

	if (rc < 0)
		return rc;
	rc = reg_audit_append(r, who, event, tool, details);
	if (rc < 0) {
		reg_rollback(r);
		return rc;
	}
	return reg_commit_nosync(r);
}
