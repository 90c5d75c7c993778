/*
 * store/quarantine.c: where a pull's fetch lands before anything of it may
 * enter the store (docs/STORE.md, "Quarantine"). A quarantine is a bare
 * repository <store>/toolgate-quarantine-XXXXXX/ (same filesystem) whose
 * object database has the store's as an alternate, so a fetch into it
 * writes only the objects the store lacks, and every check reads both. Its
 * packed-refs holds the store's refs/tools/ tips, so the fetch negotiates
 * from what this host has. Once every check passed, st_quarantine_pack
 * packs exactly the objects of the accepted histories (a packbuilder walk
 * from their fetched tips, hiding this host's tips: padding a remote put in
 * its pack and the objects of a refused history stay out) into a pack
 * written inside the quarantine (a pull does this in its bounded fetch
 * process, bounded.c); st_quarantine_move then renames the .pack and its .idx
 * into <store>/objects/pack and fsyncs that folder: a crash leaves the
 * store without the pack (or with a .pack no index names, which git and
 * libgit2 ignore) or with the whole of it. The quarantine is then removed;
 * a refused fetch removes it without admitting anything, so the store's
 * objects are byte for byte what they were.
 * Ownership: the quarantine holds <dir>/toolgate.lock, flocked for its whole
 * life (made as lock.tmp, flocked, then renamed, so the name only ever
 * appears locked). At every open of the store, and at every open of the
 * registry (tg_store_sweep: `list` and `call` never open the store),
 * st_quarantine_sweep removes a quarantine whose lock can be taken (its
 * owner died: the kernel dropped the flock) or, without a lock file, one
 * older than an hour.
 */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#define Q_PREFIX     "toolgate-quarantine-"
#define Q_LOCK       "toolgate.lock"
#define Q_OLD_SECONDS 3600

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		(void)rmdir(p);
	else
		(void)unlink(p);
	return 0;
}

static void rm_tree(const char *dir)
{
	(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void st_quarantine_sweep(const char *store)
{
	DIR *d = opendir(store);
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[PATH_MAX], lp[PATH_MAX];
		struct stat st;
		int fd;

		if (strncmp(e->d_name, Q_PREFIX, strlen(Q_PREFIX)) != 0)
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%.64s", store, e->d_name) >= sizeof(p) ||
		    lstat(p, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if ((size_t)snprintf(lp, sizeof(lp), "%s/%s", p, Q_LOCK) >= sizeof(lp))
			continue;
		fd = open(lp, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT && now - st.st_mtime > Q_OLD_SECONDS)
				rm_tree(p);
			continue;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			rm_tree(p); /* its owner died */
		close(fd);
	}
	closedir(d);
}

void st_quarantine_free(st_quarantine *q)
{
	if (!q)
		return;
	git_repository_free(q->view.repo);
	if (q->dir)
		rm_tree(q->dir);
	if (q->lock_fd >= 0)
		close(q->lock_fd);
	free(q->dir);
	free(q);
}

/* The store's refs/tools/ tips as a packed-refs file of the quarantine. */
static int seed_refs(tg_store *s, const char *dir)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	_cleanup_free_ char *path = tg_path_join(dir, "packed-refs");
	FILE *fp;
	int rc;

	if (!path)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!(fp = fopen(path, "we")))
		return tg_error_errno(TG_ERR_IO, errno, "quarantine: create %s", path);
	if ((rc = git_reference_iterator_glob_new(&it, s->repo, ST_TOOLS_PREFIX "*")) < 0) {
		rc = st_git_fail(rc, "quarantine: list the store's refs");
		goto out;
	}
	while ((rc = git_reference_next(&ref, it)) == 0) {
		const git_oid *id = git_reference_type(ref) == GIT_REFERENCE_DIRECT
					    ? git_reference_target(ref) : NULL;
		if (id)
			fprintf(fp, "%s %s\n", git_oid_tostr_s(id), git_reference_name(ref));
		git_reference_free(ref);
		ref = NULL;
	}
	rc = rc == GIT_ITEROVER ? 0 : st_git_fail(rc, "quarantine: list the store's refs");
out:
	git_reference_iterator_free(it);
	if (fclose(fp) != 0 && rc == 0)
		rc = tg_error_errno(TG_ERR_IO, errno, "quarantine: write %s", path);
	return rc;
}

int st_quarantine_open(st_quarantine **out, tg_store *s)
{
	git_repository_init_options o;
	git_repository *repo = NULL;
	st_quarantine *q;
	char objects[PATH_MAX], p[PATH_MAX], tmp[PATH_MAX];
	FILE *fp;
	int rc;

	*out = NULL;
	if (!realpath(s->path, p) || (size_t)snprintf(objects, sizeof(objects), "%s/objects", p) >=
					     sizeof(objects))
		return tg_error_errno(TG_ERR_IO, errno, "quarantine: resolve %s", s->path);
	if (!(q = calloc(1, sizeof(*q))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	q->lock_fd = -1;
	if (asprintf(&q->dir, "%s/" Q_PREFIX "XXXXXX", p) < 0) {
		q->dir = NULL;
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (!mkdtemp(q->dir)) {
		rc = tg_error_errno(TG_ERR_IO, errno, "quarantine: create %s", q->dir);
		free(q->dir);
		q->dir = NULL;
		goto fail;
	}
	snprintf(tmp, sizeof(tmp), "%s/lock.tmp", q->dir);
	snprintf(p, sizeof(p), "%s/" Q_LOCK, q->dir);
	q->lock_fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (q->lock_fd < 0 || flock(q->lock_fd, LOCK_EX) < 0 || rename(tmp, p) < 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "quarantine: lock %s", p);
		goto fail;
	}
	git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	o.flags = GIT_REPOSITORY_INIT_BARE;
	if ((rc = git_repository_init_ext(&repo, q->dir, &o)) < 0) {
		rc = st_git_fail(rc, "quarantine: init %s", q->dir);
		goto fail;
	}
	git_repository_free(repo);
	snprintf(p, sizeof(p), "%s/objects/info", q->dir);
	if ((rc = tg_mkdir_p(p, 0755)) < 0)
		goto fail;
	snprintf(p, sizeof(p), "%s/objects/info/alternates", q->dir);
	if (!(fp = fopen(p, "we")) || fprintf(fp, "%s\n", objects) < 0 || fclose(fp) != 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "quarantine: write %s", p);
		goto fail;
	}
	if ((rc = seed_refs(s, q->dir)) < 0)
		goto fail;
	if ((rc = git_repository_open_ext(&q->view.repo, q->dir,
					  GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE, NULL)) < 0) {
		rc = st_git_fail(rc, "quarantine: open %s", q->dir);
		goto fail;
	}
	q->view.path = q->dir;
	q->view.lock_fd = -1;
	*out = q;
	return 0;
fail:
	st_quarantine_free(q);
	return rc;
}

/* Move dir/pack-<name>.<ext> to packdir (same filesystem). */
static int move_one(const char *from_dir, const char *packdir, const char *name, const char *ext)
{
	char a[PATH_MAX], b[PATH_MAX];

	snprintf(a, sizeof(a), "%s/pack-%s.%s", from_dir, name, ext);
	snprintf(b, sizeof(b), "%s/pack-%s.%s", packdir, name, ext);
	if (rename(a, b) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "quarantine: move %s into the store", a);
	return 0;
}

int st_quarantine_pack(char name[41], size_t *nobjects, st_quarantine *q, const git_oid *tips,
		       const git_oid *hide, size_t n)
{
	git_packbuilder *pb = NULL;
	git_revwalk *walk = NULL;
	char outdir[PATH_MAX];
	const char *pn;
	git_oid zero;
	size_t i;
	int rc;

	memset(&zero, 0, sizeof(zero));
	name[0] = '\0';
	*nobjects = 0;
	if (n == 0)
		return 0;
	snprintf(outdir, sizeof(outdir), "%s/admit", q->dir);
	if ((rc = tg_mkdir_p(outdir, 0755)) < 0)
		return rc;
	if ((rc = git_packbuilder_new(&pb, q->view.repo)) < 0 || (rc = git_revwalk_new(&walk, q->view.repo)) < 0) {
		rc = st_git_fail(rc, "quarantine: packbuilder");
		goto out;
	}
	git_packbuilder_set_threads(pb, 1);
	for (i = 0; i < n && rc == 0; i++) {
		if ((rc = git_revwalk_push(walk, &tips[i])) < 0)
			break;
		if (!git_oid_equal(&hide[i], &zero))
			rc = git_revwalk_hide(walk, &hide[i]);
	}
	if (rc < 0 || (rc = git_packbuilder_insert_walk(pb, walk)) < 0) {
		rc = st_git_fail(rc, "quarantine: walk the accepted histories");
		goto out;
	}
	if (git_packbuilder_object_count(pb) == 0) {
		rc = 0;
		goto out;
	}
	if ((rc = git_packbuilder_write(pb, outdir, 0, NULL, NULL)) < 0) {
		rc = st_git_fail(rc, "quarantine: write the pack");
		goto out;
	}
	if (!(pn = git_packbuilder_name(pb)) || strlen(pn) != 40) {
		rc = tg_error_set(TG_ERR_INTERNAL, "quarantine: the packbuilder named no pack");
		goto out;
	}
	memcpy(name, pn, 41);
	*nobjects = git_packbuilder_written(pb);
	rc = 0;
out:
	git_revwalk_free(walk);
	git_packbuilder_free(pb);
	return rc;
}

int st_quarantine_move(st_quarantine *q, tg_store *s, const char *name)
{
	char outdir[PATH_MAX], packdir[PATH_MAX], b[PATH_MAX];
	git_odb *odb = NULL;
	int rc, dfd;

	if (!name[0])
		return 0;
	snprintf(outdir, sizeof(outdir), "%s/admit", q->dir);
	snprintf(packdir, sizeof(packdir), "%s/objects/pack", s->path);
	if ((rc = tg_mkdir_p(packdir, 0755)) < 0)
		return rc;
	/* the .pack first: an index naming a missing pack is what must never be */
	if ((rc = move_one(outdir, packdir, name, "pack")) < 0)
		return rc;
	if ((rc = move_one(outdir, packdir, name, "idx")) < 0) {
		if ((size_t)snprintf(b, sizeof(b), "%s/pack-%.64s.pack", packdir, name) < sizeof(b))
			(void)unlink(b);
		return rc;
	}
	if ((dfd = open(packdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	if (git_repository_odb(&odb, s->repo) == 0)
		(void)git_odb_refresh(odb);
	git_odb_free(odb);
	return 0;
}

int st_quarantine_admit(size_t *nobjects, st_quarantine *q, tg_store *s, const git_oid *tips,
			const git_oid *hide, size_t n)
{
	char name[41];
	int rc;

	if ((rc = st_quarantine_pack(name, nobjects, q, tips, hide, n)) < 0)
		return rc;
	return st_quarantine_move(q, s, name);
}
