/*
 * store/locks.c: the lock discipline around ref updates.
 *
 * libgit2 updates a ref by creating <ref>.lock (O_EXCL), writing and
 * fsyncing it, and renaming it over the ref; a second writer gets
 * GIT_ELOCKED at once. A process killed in between leaves the .lock behind,
 * and every later update of that ref would fail. The store therefore keeps
 * its own lock file, <repo>/toolgate.lock: every store writer holds a
 * shared flock(2) on it while it updates a ref, and the cleaner takes it
 * exclusively (without waiting) before removing anything. Holding it
 * exclusively proves no toolgate writer is inside an update; the age rule
 * (only .lock files whose mtime is ST_STALE_LOCK_SECONDS or more in the
 * past) protects writers outside toolgate, such as a plain `git` command.
 * The kernel drops flocks of killed processes, so a crash never wedges it.
 */
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

/* A store opened read-only (TG_STORE_OPEN_READONLY) has no lock file. */
static int refuse_readonly(const tg_store *s)
{
	return tg_error_set(TG_ERR_UNAVAILABLE, "store %s: opened read-only", s->path);
}

int st_lock_shared(tg_store *s)
{
	if (s->lock_fd < 0)
		return refuse_readonly(s);
	while (flock(s->lock_fd, LOCK_SH) < 0) {
		if (errno != EINTR)
			return tg_error_errno(TG_ERR_IO, errno, "flock %s/%s", s->path, ST_LOCK_FILE);
	}
	return 0;
}

int st_lock_exclusive(tg_store *s, uint64_t start_ms)
{
	unsigned attempt;

	if (s->lock_fd < 0)
		return refuse_readonly(s);
	for (attempt = 0;; attempt++) {
		if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return tg_error_errno(TG_ERR_IO, errno, "flock %s/%s", s->path, ST_LOCK_FILE);
		if (tg_now_ms() - start_ms >= ST_CAS_MAX_MS)
			return tg_error_set(TG_ERR_CONFLICT, "store %s: writers kept it busy", s->path);
		st_backoff(attempt < 3 ? attempt : 3);
	}
}

void st_unlock(tg_store *s)
{
	(void)flock(s->lock_fd, LOCK_UN);
}

int st_ref_cas(tg_store *s, const char *name, const git_oid *new_id, const git_oid *old_id, const char *msg)
{
	git_reference *r = NULL;
	git_oid zero;
	int rc;

	if (!old_id) {
		/* a zero "current value" means: must not exist (checked under the lock) */
		memset(&zero, 0, sizeof(zero));
		old_id = &zero;
	}
	if (st_lock_shared(s) < 0) {
		git_error_set_str(GIT_ERROR_OS, tg_error_last()->message);
		return GIT_ERROR;
	}
	st_snapshot_drop(s);
	rc = git_reference_create_matching(&r, s->repo, name, new_id, 1, old_id, msg);
	st_unlock(s);
	git_reference_free(r);
	return rc;
}

static int is_stale(int dirfd, const char *name, time_t now)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return now - st.st_mtime >= ST_STALE_LOCK_SECONDS;
}

/* Remove stale entries of dir (relative to the repo) whose name ends with
 * suffix (or starts with prefix when suffix is NULL). */
static int clear_dir(tg_store *s, const char *dir, const char *prefix, const char *suffix, time_t now)
{
	_cleanup_free_ char *full = tg_path_join(s->path, dir);
	struct dirent *de;
	DIR *d;
	int removed = 0;

	if (!full || !(d = opendir(full)))
		return 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		int match;
		if (suffix)
			match = n > strlen(suffix) && !strcmp(de->d_name + n - strlen(suffix), suffix);
		else
			match = !strncmp(de->d_name, prefix, strlen(prefix));
		if (match && is_stale(dirfd(d), de->d_name, now) && unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

int st_clear_stale_locks(tg_store *s)
{
	time_t now = time(NULL);
	int removed = 0;

	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return 0; /* a writer is busy: nothing can be proven stale now */
	removed += clear_dir(s, "refs/tools", NULL, ".lock", now);
	removed += clear_dir(s, "refs/active", NULL, ".lock", now);
	removed += clear_dir(s, "refs/toolgate-fetch/tools", NULL, ".lock", now);
	removed += clear_dir(s, "refs/toolgate-fetch/active", NULL, ".lock", now);
	removed += clear_dir(s, "refs", NULL, ".lock", now);
	removed += clear_dir(s, "refs/notes", NULL, ".lock", now);
	removed += clear_dir(s, ".", "packed-refs.lock", NULL, now);
	removed += clear_dir(s, ".", "config.lock", NULL, now);
	/* half-written loose objects of a killed writer (never referenced) */
	removed += clear_dir(s, "objects", "tmp_object_git2_", NULL, now);
	st_unlock(s);
	return removed;
}

int st_may_retry(unsigned attempt, uint64_t start_ms)
{
	return attempt + 1 < ST_CAS_MAX_TRIES && tg_now_ms() - start_ms < ST_CAS_MAX_MS;
}

void st_backoff(unsigned attempt)
{
	static __thread unsigned seed;
	struct timespec ts;
	unsigned long cap_us, us;

	if (!seed)
		seed = (unsigned)getpid() ^ (unsigned)tg_now_ms() ^ (unsigned)(uintptr_t)&ts;
	cap_us = 200ul << (attempt < 6 ? attempt : 6); /* 0.2 ms .. 12.8 ms */
	us = 50 + (unsigned long)rand_r(&seed) % cap_us;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)(us * 1000ul);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
