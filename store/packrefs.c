/*
 * store/packrefs.c: st_pack_refs, the loose ref files of a store moved into
 * packed-refs (what `git pack-refs --all` does), part of tg_store_pack. Every
 * version's commit moves refs/tools/<tool> and an activation moves
 * refs/active/<tool>, one file each: 2,000 tools are 4,000 files, and
 * reading them (an open, read and close each) was the largest system-call
 * cost left in `toolgate verify`. One packed-refs file is read in one go.
 *
 * libgit2's refdb compress writes packed-refs.lock, renames it over
 * packed-refs, then removes each loose file it packed under that ref's own
 * lock, and only when the file still holds the value it packed (a ref moved
 * meanwhile stays loose, and a loose ref wins over packed-refs). toolgate's
 * own ref writers are held off besides (the store's lock, exclusively, as
 * the stale-lock cleaner takes it), so none of them races the compress. The
 * refs keep their values; reflogs are not touched. A later update of a
 * packed ref writes a loose file again, which the next pack folds in.
 */
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define ST_REFS_MAX_DEPTH 8

/* Regular files under the directory fd (not *.lock), recursively. Owns fd. */
static size_t count_loose(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	size_t n = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct stat st;
		if (de->d_name[0] == '.' || (len > 5 && !strcmp(de->d_name + len - 5, ".lock")))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			n++;
		} else if (S_ISDIR(st.st_mode) && depth < ST_REFS_MAX_DEPTH) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				n += count_loose(sub, depth + 1);
		}
	}
	closedir(d);
	return n;
}

static size_t loose_refs(tg_store *s)
{
	_cleanup_free_ char *refs = tg_path_join(s->path, "refs");
	int fd = refs ? open(refs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

	return fd < 0 ? 0 : count_loose(fd, 0);
}

int st_pack_refs(tg_store *s, size_t *before, size_t *after)
{
	git_refdb *db = NULL;
	int rc;

	*before = *after = loose_refs(s);
	if (*before == 0)
		return 0;
	if ((rc = st_lock_exclusive(s, tg_now_ms())) < 0)
		return tg_error_prefix("pack refs");
	st_snapshot_drop(s);
	rc = git_repository_refdb(&db, s->repo);
	if (rc == 0)
		rc = git_refdb_compress(db);
	git_refdb_free(db);
	st_unlock(s);
	if (rc < 0)
		return st_git_fail(rc, "pack refs");
	*after = loose_refs(s);
	return 0;
}
