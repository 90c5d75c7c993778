/*
 * registry/record/audit_guard.c: an append checks the chain's head before
 * it chains onto it. The head the table ends at must be the head recorded in
 * meta (same transaction as every append) and must not be behind the anchor
 * file (advanced after each durable commit, may lag). When they disagree
 * (rows deleted with sqlite3, the anchor deleted or replaced) the append
 * records a `chain_break` entry first, with what it expected and what it
 * found, so the break stays in the log for good (verify reports every such
 * entry) instead of being papered over by the next entry. The anchor state
 * seen at a break is remembered in meta (`audit_break_anchor`) so a stale
 * anchor that only a later durable commit moves on is reported once. A
 * chain with no entry yet gets a placeholder anchor (seq 0) inside the
 * transaction, under SQLite's write lock: a missing anchor beside a
 * non-empty log then always means a deletion, never a race with the first
 * commit's anchor write.
 * The handle holds the anchor open (reg_anchor_fd, also used by audit.c's
 * writer): an open, a flock and a close per read or write, three times a
 * call, became a look at the name and a flock. The name is looked up again
 * at every use (fstatat, links not followed), so a deleted anchor is found
 * missing and a replaced one (a rename over it, or deleted and made anew:
 * another inode) is opened afresh; the record is read under its lock every
 * time, so one rewritten in place is seen as before.
 */
#include "registry/record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define GUARD_ANCHOR_MAX 1024

/* One problem line (audit.c's reg_add_line, kept here: audit.c calls this
 * file, never the reverse). */
static void guard_line(json_t *arr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(arr, json_string(buf));
}

typedef struct {
	int state; /* 0 missing, 1 a record, -1 unreadable or malformed */
	char id[33];
	int64_t seq;
	char hash[65];
	char fp[128]; /* "missing", "bad" or id:seq:hash */
} guard_anchor;

void reg_anchor_drop(tg_registry *r)
{
	/* a descriptor a fork copied is the parent's open file: left to it */
	if (r->anchor_fd >= 0 && r->anchor_pid == reg_self_pid())
		close(r->anchor_fd);
	r->anchor_fd = -1;
}

static int anchor_fd(tg_registry *r, int write, int create, int *fd, int *created, int tries)
{
	struct stat st;
	int nfd, rw = 1;

	*fd = -1;
	if (created)
		*created = 0;
	if (fstatat(AT_FDCWD, r->anchor_path, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		int e = errno;
		reg_anchor_drop(r);
		if (e != ENOENT)
			return tg_error_errno(TG_ERR_IO, e, "%s", r->anchor_path);
		if (!create)
			return 0;
		nfd = open(r->anchor_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			   0600);
		if (nfd < 0 && errno == EEXIST && tries > 0) /* made meanwhile: that one */
			return anchor_fd(r, write, 0, fd, created, tries - 1);
		if (created)
			*created = nfd >= 0;
	} else if (!S_ISREG(st.st_mode)) {
		reg_anchor_drop(r);
		return 2;
	} else if (r->anchor_fd >= 0 && r->anchor_pid == reg_self_pid() &&
		   st.st_dev == r->anchor_dev && st.st_ino == r->anchor_ino &&
		   (r->anchor_rw || !write)) {
		*fd = r->anchor_fd;
		return 1;
	} else {
		reg_anchor_drop(r);
		nfd = open(r->anchor_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (nfd < 0 && !write && (errno == EACCES || errno == EROFS || errno == EPERM)) {
			rw = 0; /* a home we may only read */
			nfd = open(r->anchor_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		}
		if (nfd < 0 && errno == ENOENT && tries > 0) /* deleted meanwhile */
			return anchor_fd(r, write, create, fd, created, tries - 1);
	}
	if (nfd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "%s", r->anchor_path);
	/* the file opened, which a race may have made another than the one
	 * looked at: the next use compares the name with this one */
	if (fstat(nfd, &st) != 0) {
		int e = errno;
		close(nfd);
		return tg_error_errno(TG_ERR_IO, e, "%s", r->anchor_path);
	}
	r->anchor_fd = nfd;
	r->anchor_rw = rw;
	r->anchor_pid = reg_self_pid();
	r->anchor_dev = st.st_dev;
	r->anchor_ino = st.st_ino;
	*fd = nfd;
	return 1;
}

int reg_anchor_fd(tg_registry *r, int write, int create, int *fd, int *created)
{
	return anchor_fd(r, write, create, fd, created, 2);
}

/* Read the anchor under a shared flock (its writer holds LOCK_EX while it
 * rewrites the record in place). */
static int guard_read_anchor(tg_registry *r, guard_anchor *a)
{
	_cleanup_json_ json_t *j = NULL;
	char buf[GUARD_ANCHOR_MAX];
	tg_json_limits lim = { sizeof(buf), 8 };
	const char *id, *h;
	ssize_t n;
	int fd, rc;

	memset(a, 0, sizeof(*a));
	snprintf(a->fp, sizeof(a->fp), "missing");
	if ((rc = reg_anchor_fd(r, 0, 0, &fd, NULL)) <= 0)
		return rc;
	a->state = -1;
	snprintf(a->fp, sizeof(a->fp), "bad");
	if (rc == 2)
		return 0; /* not a regular file: unreadable */
	while (flock(fd, LOCK_SH) != 0) {
		if (errno != EINTR)
			return tg_error_errno(TG_ERR_IO, errno, "lock %s", r->anchor_path);
	}
	n = pread(fd, buf, sizeof(buf), 0);
	(void)flock(fd, LOCK_UN);
	if (n <= 0 || tg_json_parse(&j, buf, (size_t)n, &lim) < 0) {
		tg_error_clear();
		return 0;
	}
	id = json_string_value(json_object_get(j, "db_id"));
	h = json_string_value(json_object_get(j, "hash"));
	a->seq = json_integer_value(json_object_get(j, "seq"));
	if (!id || !h || strlen(h) != 64 || strlen(id) >= sizeof(a->id) || a->seq < 0)
		return 0;
	a->state = 1;
	snprintf(a->id, sizeof(a->id), "%s", id);
	snprintf(a->hash, sizeof(a->hash), "%s", h);
	snprintf(a->fp, sizeof(a->fp), "%s:%lld:%s", id, (long long)a->seq, h);
	return 0;
}

/* The stored hash of entry seq: 1 and out filled, 0 not in the table. */
static int guard_entry_hash(tg_registry *r, int64_t seq, char out[65])
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT hash FROM audit WHERE seq = ?1");

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, seq);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read audit entry");
	snprintf(out, 65, "%s", (const char *)sqlite3_column_text(st, 0) ?: "");
	return 1;
}

/* What the anchor says against the head found; lines into problems. */
static int guard_check_anchor(tg_registry *r, const guard_anchor *a, int64_t head_seq,
			      const char *head_hash, json_t *problems)
{
	_cleanup_free_ char *rebuilt = NULL;
	int64_t archived = 0;
	char h[65];
	int rc;

	if (a->state == 0) {
		if (head_seq > 0)
			guard_line(problems, "the anchor file was missing beside a log of %lld "
					       "entries", (long long)head_seq);
		return 0;
	}
	if (a->state < 0) {
		guard_line(problems, "the anchor file was unreadable or malformed");
		return 0;
	}
	if (strcmp(a->id, r->db_id) != 0) {
		/* a rebuild records the anchor it replaces (registry_rebuilt) */
		if ((rc = reg_meta_get_text(r, "rebuilt_at", &rebuilt)) < 0)
			return rc;
		if (rc == 0)
			guard_line(problems, "the anchor file named another registry database "
					       "(%.32s, this one is %s)", a->id, r->db_id);
		return 0;
	}
	if (a->seq > head_seq) {
		guard_line(problems, "the anchor recorded entry %lld but the log ended at entry "
				       "%lld", (long long)a->seq, (long long)head_seq);
		return 0;
	}
	if (a->seq == head_seq) {
		if (strcmp(a->hash, head_hash) != 0)
			guard_line(problems, "entry %lld did not match the anchor's hash",
				     (long long)a->seq);
		return 0;
	}
	if ((rc = reg_meta_get_int(r, "audit_archived_through", &archived)) < 0)
		return rc;
	if (a->seq <= archived)
		return 0; /* archived: verify checks the archive files */
	if ((rc = guard_entry_hash(r, a->seq, h)) < 0)
		return rc;
	if (rc == 0)
		guard_line(problems, "entry %lld, which the anchor recorded, was missing",
			     (long long)a->seq);
	else if (strcmp(a->hash, h) != 0)
		guard_line(problems, "entry %lld did not match the anchor's hash",
			     (long long)a->seq);
	return 0;
}

static json_t *guard_head(int64_t seq, const char *hash)
{
	return json_pack("{s:I, s:s?}", "seq", (json_int_t)seq, "hash", hash);
}

int reg_audit_guard(tg_registry *r, int64_t head_seq, const char head_hash[65],
		    json_t **out, int *placeholder)
{
	_cleanup_json_ json_t *problems = json_array(), *d = NULL;
	_cleanup_free_ char *meta_head = NULL, *accepted = NULL;
	guard_anchor a;
	int64_t meta_seq = 0;
	int rc;

	*out = NULL;
	*placeholder = 0;
	if (!problems)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_meta_get_int(r, "audit_seq", &meta_seq)) < 0 ||
	    (rc = reg_meta_get_text(r, "audit_head", &meta_head)) < 0)
		return rc;
	if (meta_seq != head_seq)
		guard_line(problems, "the log ended at entry %lld but its recorded head was "
				       "entry %lld", (long long)head_seq, (long long)meta_seq);
	else if (head_seq > 0 && (!meta_head || strcmp(meta_head, head_hash) != 0))
		guard_line(problems, "entry %lld did not match the recorded head hash",
			     (long long)head_seq);
	if ((rc = guard_read_anchor(r, &a)) < 0)
		return rc;
	if ((rc = reg_meta_get_text(r, "audit_break_anchor", &accepted)) < 0)
		return rc;
	if (!(rc > 0 && strcmp(accepted, a.fp) == 0)) {
		size_t before = json_array_size(problems);
		if ((rc = guard_check_anchor(r, &a, head_seq, head_hash, problems)) < 0)
			return rc;
		/* the stale anchor of an earlier break has moved on: forget it,
		 * so the same state seen again is a new break */
		if (accepted && accepted[0] && json_array_size(problems) == before &&
		    (rc = reg_meta_set_text(r, "audit_break_anchor", "")) < 0)
			return rc;
	}
	/* a chain with no entry and no anchor: the caller writes the
	 * placeholder (seq 0) now, under the write lock */
	*placeholder = a.state == 0 && head_seq == 0;
	if (json_array_size(problems) == 0)
		return 0;
	d = json_pack("{s:O, s:o, s:o, s:o*}", "problems", problems, "found",
		      guard_head(head_seq, head_hash), "expected_meta",
		      guard_head(meta_seq, meta_head),
		      "expected_anchor", a.state > 0 ? guard_head(a.seq, a.hash) : NULL);
	if (!d)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_meta_set_text(r, "audit_break_anchor", a.fp)) < 0)
		return rc;
	*out = TG_TAKE_PTR(d);
	return 1;
}
