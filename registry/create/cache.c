/*
 * registry/create/cache.c: keeping the build cache bounded and clean.
 *
 * Work folders. A build (.build-S) or a pending version's scratch
 * workspace (.scratch-S) under cache/ is owned through a lock file made
 * BEFORE it: mkstemp(cache/.lock-S), flock(LOCK_EX) held for the folder's
 * whole life, then mkdir of the folder with the same random suffix S. At
 * every open (reg_sweep_workdirs) a folder whose lock file can be locked
 * (its owner died: the kernel dropped the flock) is removed with its lock
 * file; one whose lock is held is a live build and is never touched; one
 * without a lock file (left by an older toolgate) goes after an hour as
 * before. The lock file lives next to the folder, never inside it: a
 * scratch folder is bound at /workspace and must stay empty. cache/ itself
 * is recreated when it went missing under a running process.
 *
 * Size. A version that failed or was rejected keeps no binary (unless a
 * passing version shares its content hash). When cache/ grows past
 * cache_budget_mb (config.json, default 256), binaries of inactive versions
 * go first, least recently used first, then active ones if still over;
 * their build records go with them. A call rebuilds a missing binary from
 * the store and re-checks it (call.c), so eviction costs time, never
 * correctness.
 *
 * Use. Whoever is about to run a cached build (a call, a create's tests
 * right after its build) marks its folder used (reg_cache_mark_used): a
 * shared flock on cache/<key>, a check that the folder is still the one at
 * that path, and its mtime set to now. "Last use" is that mtime (atime is
 * not kept by relatime mounts). An eviction takes the exclusive lock
 * without waiting, re-reads the mtime under it and renames the folder
 * away only when nobody used it in the last CACHE_GRACE_S seconds: a build
 * marked before the eviction looked is kept, one marked after finds the
 * folder gone and is rebuilt. So another process's eviction never removes a
 * build out from under a create or call in flight; the cache may stay over
 * its budget meanwhile (gc says how many builds it kept for that).
 */
#include "registry/create/create.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#define WORKDIR_OLD_SECONDS 3600
/* longer than a create's build and its tests, or a call, take to start
 * their runs after marking the build used */
#define CACHE_GRACE_S 600

void reg_rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			_cleanup_free_ char *p = NULL;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			p = tg_path_join(dir, e->d_name);
			if (p && unlink(p) != 0 && errno == EISDIR)
				reg_rm_tree(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

int reg_workdir_make(reg_workdir *w, tg_registry *r, const char *kind)
{
	_cleanup_free_ char *lock = NULL;
	int rc, tries;

	w->dir = NULL;
	w->lock_path = NULL;
	w->lock_fd = -1;
	if ((rc = tg_mkdir_p(r->cache_dir, 0700)) < 0) /* removed under a live process */
		return rc;
	for (tries = 0; tries < 16; tries++) {
		const char *suffix;
		if (asprintf(&lock, "%s/.lock-XXXXXX", r->cache_dir) < 0) {
			lock = NULL;
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
		w->lock_fd = mkostemp(lock, O_CLOEXEC);
		if (w->lock_fd < 0)
			return tg_error_errno(TG_ERR_IO, errno, "cannot create a lock file in %s",
					      r->cache_dir);
		while (flock(w->lock_fd, LOCK_EX) != 0 && errno == EINTR)
			;
		suffix = lock + strlen(lock) - 6;
		if (asprintf(&w->dir, "%s/.%s-%s", r->cache_dir, kind, suffix) < 0) {
			w->dir = NULL;
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if (mkdir(w->dir, 0700) == 0) {
			w->lock_path = TG_TAKE_PTR(lock);
			return 0;
		}
		rc = errno;
		free(w->dir);
		w->dir = NULL;
		unlink(lock);
		close(w->lock_fd);
		w->lock_fd = -1;
		free(lock);
		lock = NULL;
		if (rc != EEXIST)
			return tg_error_errno(TG_ERR_IO, rc, "cannot create a work folder in %s",
					      r->cache_dir);
	}
	return tg_error_set(TG_ERR_IO, "cannot create a work folder in %s", r->cache_dir);
fail:
	unlink(lock);
	close(w->lock_fd);
	w->lock_fd = -1;
	return rc;
}

void reg_workdir_release(reg_workdir *w, int remove_dir)
{
	if (remove_dir && w->dir)
		reg_rm_tree(w->dir);
	/* the folder first, then its lock: a sweeper never sees the folder
	 * without a held lock */
	if (w->lock_path)
		unlink(w->lock_path);
	if (w->lock_fd >= 0)
		close(w->lock_fd);
	free(w->dir);
	free(w->lock_path);
	w->dir = NULL;
	w->lock_path = NULL;
	w->lock_fd = -1;
}

/* The lock of a work folder .KIND-S is .lock-S: 1 when it is held (a live
 * owner), 0 when it can be taken (owner dead: the lock file is removed
 * too), -1 when there is none. */
static int lock_state(int cfd, const char *suffix)
{
	char name[64];
	int fd, held;

	snprintf(name, sizeof(name), ".lock-%s", suffix);
	fd = openat(cfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	held = flock(fd, LOCK_EX | LOCK_NB) != 0;
	close(fd);
	return held;
}

void reg_sweep_workdirs(tg_registry *r)
{
	DIR *d = opendir(r->cache_dir);
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *name = e->d_name, *suffix;
		struct stat st;
		char p[4096], lp[4096];
		int state;

		if (name[0] != '.')
			continue;
		if (!strncmp(name, ".build-", 7))
			suffix = name + 7;
		else if (!strncmp(name, ".scratch-", 9))
			suffix = name + 9;
		else if (!strncmp(name, ".stale-", 7))
			suffix = NULL; /* a discard interrupted by a crash */
		else
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", r->cache_dir, name) >= sizeof(p) ||
		    lstat(p, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		state = suffix && strlen(suffix) == 6 ? lock_state(dirfd(d), suffix) : -1;
		if (state == 1)
			continue; /* a live build: never touched */
		if (state == -1 && now - st.st_mtime <= WORKDIR_OLD_SECONDS)
			continue; /* no lock file: only after an hour, as before */
		reg_rm_tree(p);
		if (state == 0 &&
		    (size_t)snprintf(lp, sizeof(lp), "%s/.lock-%s", r->cache_dir, suffix) < sizeof(lp))
			unlink(lp);
	}
	closedir(d);
	/* lock files whose folder is gone (a crash between the two unlinks) */
	if (!(d = opendir(r->cache_dir)))
		return;
	while ((e = readdir(d))) {
		char b[64], s[64];
		struct stat st;
		if (strncmp(e->d_name, ".lock-", 6) != 0 || strlen(e->d_name) != 12)
			continue;
		snprintf(b, sizeof(b), ".build-%s", e->d_name + 6);
		snprintf(s, sizeof(s), ".scratch-%s", e->d_name + 6);
		if (fstatat(dirfd(d), b, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    fstatat(dirfd(d), s, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (lock_state(dirfd(d), e->d_name + 6) == 0)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* Forget the build records of a cache key (best effort). */
static void forget_key(tg_registry *r, const char *key)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	char a[80], b[80];

	snprintf(a, sizeof(a), "build:%s", key);
	snprintf(b, sizeof(b), "buildid:%s", key);
	if (reg_prepare(r, &st, "DELETE FROM meta WHERE key IN (?1, ?2)") < 0) {
		tg_error_clear();
		return;
	}
	sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
	(void)reg_step(st);
}

void reg_cache_discard(tg_registry *r, const char *dir)
{
	_cleanup_free_ char *aside = NULL;

	if (asprintf(&aside, "%s/.stale-XXXXXX", r->cache_dir) < 0)
		return;
	if (mkdtemp(aside) && rename(dir, aside) == 0) {
		reg_rm_tree(aside);
	} else {
		rmdir(aside);
		reg_rm_tree(dir);
	}
}

int reg_cache_mark_used(tg_registry *r, const char *key)
{
	_cleanup_free_ char *dir = tg_path_join(r->cache_dir, key);
	struct stat a, b;
	int fd, here;

	if (!dir)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* an eviction holds the lock exclusively from its look to its rename */
	here = flock(fd, LOCK_SH) == 0 && fstat(fd, &a) == 0 && lstat(dir, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	/* a mark younger than a minute stands (no inode write on every call);
	 * a read-only home keeps no mark */
	if (here && a.st_mtime < time(NULL) - 60)
		(void)futimens(fd, NULL);
	close(fd);
	return here;
}

/* The folder goes first, in one rename (a process killed while deleting
 * files in place left a key folder without its files next to its record:
 * verify's "does not match the hash recorded"), then its record. Only
 * under the folder's exclusive lock, taken without waiting: 0 when gone,
 * 1 when kept because it is being marked used or, with grace, was used in
 * the last CACHE_GRACE_S seconds. */
static int remove_key(tg_registry *r, const char *key, int grace)
{
	_cleanup_free_ char *dir = tg_path_join(r->cache_dir, key);
	struct stat st;
	int fd;

	if (!dir)
		return 1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (flock(fd, LOCK_EX | LOCK_NB) != 0 ||
		    (grace && fstat(fd, &st) == 0 && st.st_mtime > time(NULL) - CACHE_GRACE_S)) {
			close(fd);
			return 1;
		}
		reg_cache_discard(r, dir);
		close(fd);
	} else if (errno != ENOENT) {
		reg_cache_discard(r, dir); /* not a folder: planted or broken */
	}
	forget_key(r, key);
	return 0;
}

int reg_cache_drop_unused(tg_registry *r, const char *content_hash)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	char key[65];
	int rc;

	rc = reg_prepare(r, &st, "SELECT 1 FROM versions WHERE content_hash = ?1 AND status IN "
				 "('active', 'inactive', 'pending', 'held') LIMIT 1");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, content_hash, -1, SQLITE_STATIC);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		return 0; /* a passing version builds from the same source */
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "find versions by content hash");
	if ((rc = reg_cache_key(key, content_hash, r)) < 0)
		return rc;
	(void)remove_key(r, key, 0);
	return 0;
}

typedef struct cache_entry {
	char key[65];
	uint64_t bytes;
	int64_t used;   /* last use: the folder's mtime (reg_cache_mark_used) */
	int active;
} cache_entry;

static int by_use(const void *a, const void *b)
{
	const cache_entry *x = a, *y = b;

	if (x->active != y->active)
		return x->active - y->active; /* inactive first */
	return x->used < y->used ? -1 : x->used > y->used;
}

/* Keys of the active versions' builds. */
static int active_keys(tg_registry *r, char (**out)[65], size_t *n)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	char (*keys)[65] = NULL;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = reg_prepare(r, &st, "SELECT DISTINCT content_hash FROM versions WHERE status = "
				 "'active'");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(st, 0);
		if (!h)
			continue;
		if (*n == cap) {
			void *p = realloc(keys, (cap = cap ? cap * 2 : 64) * sizeof(*keys));
			if (!p) {
				free(keys);
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
			}
			keys = p;
		}
		if (reg_cache_key(keys[*n], h, r) < 0) {
			free(keys);
			return tg_error_last()->code;
		}
		(*n)++;
	}
	if (rc != SQLITE_DONE) {
		free(keys);
		return reg_sqlerr(r, rc, "list active versions");
	}
	*out = keys;
	return 0;
}

int reg_cache_evict(tg_registry *r, uint64_t budget, reg_evict_stats *out)
{
	_cleanup_free_ cache_entry *ents = NULL;
	_cleanup_free_ char (*act)[65] = NULL;
	size_t n = 0, cap = 0, nact = 0, i, j;
	uint64_t total = 0;
	DIR *d;
	struct dirent *e;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(d = opendir(r->cache_dir)))
		return 0;
	while ((e = readdir(d))) {
		_cleanup_free_ char *sub = NULL;
		uint64_t bytes = 0;
		struct stat st;
		if (strlen(e->d_name) != 64 || strspn(e->d_name, "0123456789abcdef") != 64)
			continue;
		sub = tg_path_join(r->cache_dir, e->d_name);
		if (!sub || reg_dir_usage(sub, &bytes, NULL) < 0) {
			tg_error_clear();
			continue;
		}
		if (n == cap) {
			void *p = realloc(ents, (cap = cap ? cap * 2 : 64) * sizeof(*ents));
			if (!p) {
				closedir(d);
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
			}
			ents = p;
		}
		memcpy(ents[n].key, e->d_name, 65);
		ents[n].bytes = bytes;
		ents[n].used = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
				       ? (int64_t)st.st_mtime
				       : 0;
		ents[n].active = 0;
		total += bytes;
		n++;
	}
	closedir(d);
	out->bytes_before = total;
	out->bytes_after = total;
	if (!budget || total <= budget)
		return 0;
	if ((rc = active_keys(r, &act, &nact)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		for (j = 0; j < nact && !ents[i].active; j++)
			ents[i].active = strcmp(ents[i].key, act[j]) == 0;
	qsort(ents, n, sizeof(*ents), by_use);
	for (i = 0; i < n && total > budget; i++) {
		if (remove_key(r, ents[i].key, 1)) {
			out->kept_in_use++;
			continue;
		}
		total -= ents[i].bytes;
		out->evicted++;
		out->evicted_active += ents[i].active;
	}
	out->bytes_after = total;
	return 0;
}
