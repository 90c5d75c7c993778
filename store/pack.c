/*
 * store/pack.c: store upkeep. Every version adds a few loose objects (one
 * file each); left alone, 2,000 tools made 16,386 files. tg_store_pack
 * writes every object of the repository, reachable ones first (walked from
 * every ref, so that deltas find their bases), into one new pack with
 * libgit2's packbuilder, and only then removes what the pack now holds: the
 * loose files of the objects it inserted and the packs it replaced (those
 * listed before it began: a pack a pull admits meanwhile stays). Objects
 * written meanwhile by another process were not inserted and stay loose;
 * unreachable objects (dropped versions) are packed, never pruned; history
 * is never touched, and the loose ref files go into packed-refs with their
 * values (packrefs.c). One packer at a time (an flock on
 * <store>/toolgate-pack.lock; a second one returns at once, packing
 * nothing). tg_store_object_counts counts loose objects and packs by
 * reading the folders, without libgit2. A packer killed mid-write leaves
 * libgit2's temporary pack (objects/pack/pack_git2_*, the prefix is
 * libgit2's alone; only the packer writes into the store's pack folder, a
 * pull's pack is written in its quarantine and renamed in whole):
 * st_pack_sweep removes it at every open when the pack lock is free.
 */
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

static int is_hex(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

int tg_store_object_counts(tg_store *s, size_t *loose, size_t *packs)
{
	_cleanup_free_ char *objects = tg_path_join(s->path, "objects");
	_cleanup_free_ char *packdir = objects ? tg_path_join(objects, "pack") : NULL;
	DIR *d;
	struct dirent *e;

	*loose = 0;
	*packs = 0;
	if (!packdir)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((d = opendir(objects))) {
		while ((e = readdir(d))) {
			int fd;
			DIR *sub;
			struct dirent *f;
			if (!is_hex(e->d_name, 2))
				continue;
			fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 || !(sub = fdopendir(fd))) {
				if (fd >= 0)
					close(fd);
				continue;
			}
			while ((f = readdir(sub)))
				*loose += is_hex(f->d_name, 38);
			closedir(sub);
		}
		closedir(d);
	}
	if ((d = opendir(packdir))) {
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);
			*packs += n > 5 && strcmp(e->d_name + n - 5, ".pack") == 0;
		}
		closedir(d);
	}
	return 0;
}

/* The oids inserted into the pack, as 40-hex strings. */
typedef struct {
	git_packbuilder *pb;
	char (*ids)[41];
	size_t n, cap;
} pack_ctx;

static int insert_one(const git_oid *id, void *payload)
{
	pack_ctx *c = payload;
	int rc = git_packbuilder_insert(c->pb, id, NULL);

	if (rc < 0)
		return rc;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		void *p = realloc(c->ids, cap * sizeof(*c->ids));
		if (!p)
			return -1;
		c->ids = p;
		c->cap = cap;
	}
	git_oid_tostr(c->ids[c->n++], 41, id);
	return 0;
}

/* Remove the loose file of every inserted object, then empty fan-out
 * folders. */
static size_t remove_loose(const char *objects, pack_ctx *c)
{
	size_t removed = 0, i;
	char p[4096];

	for (i = 0; i < c->n; i++) {
		snprintf(p, sizeof(p), "%s/%.2s/%s", objects, c->ids[i], c->ids[i] + 2);
		if (unlink(p) == 0)
			removed++;
	}
	for (i = 0; i < 256; i++) {
		snprintf(p, sizeof(p), "%s/%02zx", objects, i);
		(void)rmdir(p); /* only when empty */
	}
	return removed;
}

/* The names of the packs there now ("pack-<hex>", without .pack), read
 * before anything is inserted: only these may be replaced. A pack that
 * arrives meanwhile (a pull admitting its quarantine) was not inserted and
 * must stay. */
typedef struct pack_names {
	char (*v)[64];
	size_t n;
} pack_names;

static int list_packs(pack_names *out, const char *packdir)
{
	DIR *d = opendir(packdir);
	struct dirent *e;
	size_t cap = 0;

	out->v = NULL;
	out->n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 6 || n - 5 >= sizeof(*out->v) || strcmp(e->d_name + n - 5, ".pack") != 0)
			continue;
		if (out->n == cap) {
			void *p = realloc(out->v, (cap = cap ? cap * 2 : 16) * sizeof(*out->v));
			if (!p) {
				closedir(d);
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
			}
			out->v = p;
		}
		snprintf(out->v[out->n++], sizeof(*out->v), "%.*s", (int)(n - 5), e->d_name);
	}
	closedir(d);
	return 0;
}

/* Remove every listed pack (and its .idx, .rev) but the new one, unless kept. */
static void remove_old_packs(const char *packdir, const char *keep_name, const pack_names *old)
{
	char base[2048], p[4096];
	size_t i;

	for (i = 0; i < old->n; i++) {
		struct stat st;
		if (strstr(old->v[i], keep_name))
			continue;
		if ((size_t)snprintf(base, sizeof(base), "%s/%s", packdir, old->v[i]) >= sizeof(base))
			continue;
		snprintf(p, sizeof(p), "%s.keep", base);
		if (stat(p, &st) == 0)
			continue; /* someone asked git to keep it */
		snprintf(p, sizeof(p), "%s.idx", base);
		(void)unlink(p);
		snprintf(p, sizeof(p), "%s.rev", base);
		(void)unlink(p);
		snprintf(p, sizeof(p), "%s.pack", base);
		(void)unlink(p);
	}
}

#define PACK_TMP_PREFIX "pack_git2_"

/* 1 when objects/pack holds a libgit2 temporary pack; with rm, removes them. */
static int pack_tmp_scan(const char *packdir, int rm)
{
	DIR *d = opendir(packdir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;
		if (strncmp(e->d_name, PACK_TMP_PREFIX, strlen(PACK_TMP_PREFIX)) != 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		found = 1;
		if (rm)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	return found;
}

void st_pack_sweep(const char *store)
{
	_cleanup_free_ char *packdir = tg_path_join(store, "objects/pack");
	_cleanup_free_ char *lockpath = tg_path_join(store, "toolgate-pack.lock");
	_cleanup_close_ int lfd = -1;

	/* the lock only when there is something to sweep: an open costs one
	 * readdir of the pack folder */
	if (!packdir || !lockpath || !pack_tmp_scan(packdir, 0))
		return;
	lfd = open(lockpath, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB) < 0)
		return; /* no lock file: never packed here; held: a live packer's */
	(void)pack_tmp_scan(packdir, 1);
}

int tg_store_pack(tg_store *s, tg_store_pack_stats *out)
{
	_cleanup_free_ char *objects = tg_path_join(s->path, "objects");
	_cleanup_free_ char *packdir = objects ? tg_path_join(objects, "pack") : NULL;
	_cleanup_free_ char *lockpath = tg_path_join(s->path, "toolgate-pack.lock");
	_cleanup_close_ int lfd = -1;
	pack_ctx c = { 0 };
	pack_names old = { NULL, 0 };
	git_revwalk *walk = NULL;
	git_odb *odb = NULL;
	const char *name;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!packdir || !lockpath)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	lfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (lfd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "open %s", lockpath);
	if (flock(lfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			out->busy = 1; /* another process is packing */
			return 0;
		}
		return tg_error_errno(TG_ERR_IO, errno, "flock %s", lockpath);
	}
	/* the refs first: they are what the objects' walk starts from */
	if ((rc = st_pack_refs(s, &out->refs_before, &out->refs_after)) < 0)
		return rc;
	rc = tg_store_object_counts(s, &out->loose_before, &out->packs_before);
	if (rc < 0)
		return rc;
	if (out->loose_before == 0 && out->packs_before <= 1)
		return 0; /* nothing to gain */
	if ((rc = list_packs(&old, packdir)) < 0)
		return rc;
	if ((rc = git_packbuilder_new(&c.pb, s->repo)) < 0) {
		rc = st_git_fail(rc, "pack: packbuilder");
		goto out;
	}
	git_packbuilder_set_threads(c.pb, 1);
	/* reachable objects first, newest first, for good deltas */
	if ((rc = git_revwalk_new(&walk, s->repo)) < 0 ||
	    (rc = git_revwalk_push_glob(walk, "refs/*")) < 0 ||
	    (rc = git_packbuilder_insert_walk(c.pb, walk)) < 0) {
		rc = st_git_fail(rc, "pack: walk the refs");
		goto out;
	}
	/* then every object the database holds (a repeat is a no-op for the
	 * packbuilder), and the list of what is in the pack */
	if ((rc = git_repository_odb(&odb, s->repo)) < 0 ||
	    (rc = git_odb_foreach(odb, insert_one, &c)) < 0) {
		rc = rc == -1 && !git_error_last() ? tg_error_set(TG_ERR_NOMEM, "out of memory")
						    : st_git_fail(rc, "pack: list the objects");
		goto out;
	}
	if ((rc = git_packbuilder_write(c.pb, packdir, 0, NULL, NULL)) < 0) {
		rc = st_git_fail(rc, "pack: write the pack");
		goto out;
	}
	out->objects = git_packbuilder_written(c.pb);
	name = git_packbuilder_name(c.pb);
	if (!name) {
		rc = tg_error_set(TG_ERR_INTERNAL, "pack: the packbuilder named no pack");
		goto out;
	}
	snprintf(out->pack, sizeof(out->pack), "pack-%s", name);
	/* the pack (and its index) is on disk, fsynced by libgit2: now what it
	 * holds may go */
	out->loose_removed = remove_loose(objects, &c);
	remove_old_packs(packdir, out->pack, &old);
	rc = tg_store_object_counts(s, &out->loose_after, &out->packs_after);
out:
	git_revwalk_free(walk);
	git_odb_free(odb);
	git_packbuilder_free(c.pb);
	free(c.ids);
	free(old.v);
	return rc;
}
