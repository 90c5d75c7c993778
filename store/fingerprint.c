/*
 * store/fingerprint.c: tg_store_fingerprint, a cheap SHA-256 of the
 * store's ref state computed with plain system calls (no libgit2, whose
 * initialisation costs milliseconds): the sorted (name, inode, size,
 * mtime, ctime) of every file under refs/tools/ and refs/active/, and of
 * packed-refs. libgit2 writes a ref by writing <ref>.lock and renaming it
 * over the ref, so the new file holds a different inode than the one it
 * replaces (both exist at once); packing rewrites packed-refs the same way.
 *
 * Timestamps have a coarse granularity (a kernel tick) and inode numbers
 * are reused, so a file whose mtime or ctime is within ST_FP_RACY_NS of now
 * ("racy", as git calls it for its index) has its content hashed too: two
 * states with equal fingerprints have equal ref contents unless file times
 * were set by hand or the clock went back. Docs: docs/STORE.md.
 */
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Past this many entries (or this depth, or a packed-refs this large) the
 * answer is TG_STORE_FINGERPRINT_CHANGED. */
#define ST_FP_MAX_ENTRIES 100000u
#define ST_FP_MAX_DEPTH 8
#define ST_FP_MAX_PACKED (64u << 20)
/* Files changed this recently are hashed with their content. */
#define ST_FP_RACY_NS (2ll * 1000000000ll)

typedef struct fp_entry {
	char *name;      /* "refs/tools/x", "packed-refs" */
	struct stat st;
} fp_entry;

typedef struct fp_walk {
	fp_entry *items;
	size_t n, cap;
	int overflow;    /* a limit was hit, or something not a plain file */
} fp_walk;

static int fp_add(fp_walk *w, const char *name, const struct stat *st)
{
	if (w->n >= ST_FP_MAX_ENTRIES) {
		w->overflow = 1;
		return 0;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		fp_entry *p = realloc(w->items, cap * sizeof(*p));
		if (!p)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		w->items = p;
		w->cap = cap;
	}
	if (!(w->items[w->n].name = strdup(name)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	w->items[w->n].st = *st;
	w->n++;
	return 0;
}

static int ends_with_lock(const char *s)
{
	size_t n = strlen(s);
	return n >= 5 && strcmp(s + n - 5, ".lock") == 0;
}

/* Walk the directory fd (named rel) into w. Owns fd. */
static int fp_walk_dir(fp_walk *w, int fd, const char *rel, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		int e = errno;
		close(fd);
		return tg_error_errno(TG_ERR_IO, e, "fingerprint: read %s", rel);
	}
	for (;;) {
		char name[1024];
		struct stat st;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				rc = tg_error_errno(TG_ERR_IO, errno, "fingerprint: read %s", rel);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (ends_with_lock(de->d_name))
			continue; /* a writer's lock file: not a ref (yet) */
		if ((size_t)snprintf(name, sizeof(name), "%s/%s", rel, de->d_name) >= sizeof(name)) {
			w->overflow = 1;
			break;
		}
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue; /* removed meanwhile: the ref change shows elsewhere */
			rc = tg_error_errno(TG_ERR_IO, errno, "fingerprint: stat %s", name);
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub;
			if (depth >= ST_FP_MAX_DEPTH) {
				w->overflow = 1;
				break;
			}
			sub = openat(fd, de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				if (errno == ENOENT)
					continue;
				rc = tg_error_errno(TG_ERR_IO, errno, "fingerprint: open %s", name);
				break;
			}
			/* the folder itself: its identity, not its times (lock files
			 * come and go in it) */
			st.st_size = 0;
			st.st_mtim.tv_sec = st.st_ctim.tv_sec = 0;
			st.st_mtim.tv_nsec = st.st_ctim.tv_nsec = 0;
			if ((rc = fp_add(w, name, &st)) < 0 ||
			    (rc = fp_walk_dir(w, sub, name, depth + 1)) < 0)
				break;
		} else if (S_ISREG(st.st_mode)) {
			if ((rc = fp_add(w, name, &st)) < 0)
				break;
		} else {
			w->overflow = 1; /* a symlink or a device: no cheap answer */
			break;
		}
		if (w->overflow)
			break;
	}
	closedir(d);
	return rc;
}

/* Walk repo/<rel> (absent: nothing to add). */
static int fp_walk_top(fp_walk *w, int repofd, const char *rel)
{
	int fd = openat(repofd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP || errno == ENOTDIR) {
			w->overflow = 1;
			return 0;
		}
		return tg_error_errno(TG_ERR_IO, errno, "fingerprint: open %s", rel);
	}
	return fp_walk_dir(w, fd, rel, 0);
}

static int fp_cmp(const void *a, const void *b)
{
	return strcmp(((const fp_entry *)a)->name, ((const fp_entry *)b)->name);
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000ll + t->tv_nsec;
}

/* Hash the content of a racy file; *changed = 1 when it changed under us
 * (or was replaced meanwhile). */
static int fp_hash_content(tg_sha256 *h, int repofd, const fp_entry *e, int *changed)
{
	_cleanup_close_ int fd = openat(repofd, e->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char buf[8192];
	uint64_t total = 0;
	ssize_t k;

	if (fd < 0) {
		if (errno == ENOENT || errno == ELOOP) {
			*changed = 1;
			return 0;
		}
		return tg_error_errno(TG_ERR_IO, errno, "fingerprint: open %s", e->name);
	}
	if (fstat(fd, &st) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "fingerprint: stat %s", e->name);
	if (st.st_ino != e->st.st_ino || st.st_dev != e->st.st_dev) {
		*changed = 1;
		return 0;
	}
	tg_sha256_update(h, "C", 1);
	for (;;) {
		k = read(fd, buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return tg_error_errno(TG_ERR_IO, errno, "fingerprint: read %s", e->name);
		if (k == 0)
			break;
		total += (uint64_t)k;
		if (total > ST_FP_MAX_PACKED) {
			*changed = 1;
			return 0;
		}
		tg_sha256_update(h, buf, (size_t)k);
	}
	if (fstat(fd, &st) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "fingerprint: stat %s", e->name);
	if (total != (uint64_t)st.st_size || ts_ns(&st.st_mtim) != ts_ns(&e->st.st_mtim) ||
	    ts_ns(&st.st_ctim) != ts_ns(&e->st.st_ctim))
		*changed = 1; /* written while we read it */
	return 0;
}

int tg_store_fingerprint(char out[65], const char *path)
{
	_cleanup_close_ int repofd = -1;
	fp_walk w = { 0 };
	struct stat st;
	struct timespec now;
	tg_sha256 h;
	unsigned char digest[32];
	int64_t racy_after;
	size_t i;
	int rc = 0, changed = 0;

	out[0] = '\0';
	if (!path || !*path)
		return tg_error_set(TG_ERR_INVALID, "store path: empty");
	repofd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (repofd < 0)
		return tg_error_errno(errno == ENOENT ? TG_ERR_NOTFOUND : TG_ERR_IO, errno,
				      "fingerprint: open store %s", path);
	/* the clock first: whatever is written after this point is racy */
	clock_gettime(CLOCK_REALTIME, &now);
	racy_after = ts_ns(&now) - ST_FP_RACY_NS;
	if ((rc = fp_walk_top(&w, repofd, "refs/tools")) < 0 ||
	    (rc = fp_walk_top(&w, repofd, "refs/active")) < 0)
		goto out;
	if (fstatat(repofd, "packed-refs", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode) || st.st_size > (off_t)ST_FP_MAX_PACKED)
			w.overflow = 1;
		else if ((rc = fp_add(&w, "packed-refs", &st)) < 0)
			goto out;
	} else if (errno != ENOENT) {
		rc = tg_error_errno(TG_ERR_IO, errno, "fingerprint: stat packed-refs");
		goto out;
	}
	if (w.overflow) {
		rc = 1;
		goto out;
	}
	if (w.n > 1)
		qsort(w.items, w.n, sizeof(*w.items), fp_cmp);
	tg_sha256_init(&h);
	tg_sha256_update(&h, "toolgate-store-fingerprint-1\n", 29);
	for (i = 0; i < w.n; i++) {
		const fp_entry *e = &w.items[i];
		/* name, NUL, kind, then the numbers in host byte order (the value
		 * never leaves this machine) */
		uint64_t num[4] = { (uint64_t)e->st.st_ino, (uint64_t)e->st.st_size,
				    (uint64_t)ts_ns(&e->st.st_mtim), (uint64_t)ts_ns(&e->st.st_ctim) };
		tg_sha256_update(&h, e->name, strlen(e->name) + 1);
		tg_sha256_update(&h, S_ISDIR(e->st.st_mode) ? "D" : "F", 1);
		tg_sha256_update(&h, num, sizeof(num));
		if (S_ISREG(e->st.st_mode) && (ts_ns(&e->st.st_mtim) >= racy_after ||
					       ts_ns(&e->st.st_ctim) >= racy_after)) {
			if ((rc = fp_hash_content(&h, repofd, e, &changed)) < 0)
				goto out;
			if (changed) {
				rc = 1;
				goto out;
			}
		}
	}
	tg_sha256_final(&h, digest);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
	rc = 0;
out:
	for (i = 0; i < w.n; i++)
		free(w.items[i].name);
	free(w.items);
	if (rc == 1)
		snprintf(out, 65, "%s", TG_STORE_FINGERPRINT_CHANGED);
	return rc;
}
