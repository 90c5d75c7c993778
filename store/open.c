/*
 * store/open.c: opening and creating the bare, branch-free repository.
 *
 * A new store is made with git_repository_init_ext (bare, HEAD -> "main",
 * which is never created). Every open makes sure of the settings the store
 * relies on: core.logAllRefUpdates=always (bare repositories write no
 * reflogs otherwise, and the default only logs branches), an identity for
 * reflog entries, fsync as set by tg_store_set_fsync (on by default), and it
 * clears ref .lock files left by a crash (see locks.c) and the quarantines
 * of fetches whose process died (quarantine.c). A read-only open (a
 * read-only home) does none of that: it only reads.
 */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

static int st_fsync_enabled = 1;

void tg_store_set_fsync(int enabled)
{
	st_fsync_enabled = enabled ? 1 : 0;
	if (tg_git_load() < 0)
		return; /* tg_store_open reports it; the option is applied there too */
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, st_fsync_enabled);
	git_libgit2_shutdown();
}

/* Set key=value in the repository config unless it already holds value.
 * Returns 1 when it changed something. */
static int config_ensure(git_repository *repo, const char *key, const char *value)
{
	git_config *cfg = NULL;
	git_buf cur = GIT_BUF_INIT;
	unsigned tries;
	int rc, changed = 0;

	if ((rc = git_repository_config(&cfg, repo)) < 0)
		return st_git_fail(rc, "config");
	rc = git_config_get_string_buf(&cur, cfg, key);
	if (rc == 0 && !strcmp(cur.ptr, value)) {
		rc = 0;
		goto out;
	}
	for (tries = 0; tries < 50; tries++) {
		rc = git_config_set_string(cfg, key, value);
		if (rc != GIT_ELOCKED)
			break;
		st_backoff(tries);
	}
	if (rc < 0) {
		rc = st_git_fail(rc, "config %s", key);
		goto out;
	}
	changed = 1;
out:
	git_buf_dispose(&cur);
	git_config_free(cfg);
	return rc < 0 ? rc : changed;
}

static int open_repo(git_repository **out, const char *path)
{
	return git_repository_open_ext(out, path, GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE,
				       NULL);
}

static int configure(tg_store *s)
{
	static const char *const settings[][2] = {
		{ "core.logAllRefUpdates", "always" },
		{ "user.name", "toolgate" },
		{ "user.email", "toolgate@localhost" },
	};
	size_t i;
	int rc, changed = 0;

	for (i = 0; i < TG_ARRAY_SIZE(settings); i++) {
		if ((rc = config_ensure(s->repo, settings[i][0], settings[i][1])) < 0)
			return rc;
		changed |= rc;
	}
	if (changed) {
		/* the ref database read the reflog setting when it was loaded */
		git_repository_free(s->repo);
		s->repo = NULL;
		if ((rc = open_repo(&s->repo, s->path)) < 0)
			return st_git_fail(rc, "reopen %s", s->path);
	}
	return 0;
}

/* Create the repository at path. Two processes creating the same store at
 * once would race inside git_repository_init_ext (one sees a half-made
 * repository), so creation is serialized with an flock on the parent
 * folder, and whoever comes second opens what the first made. */
static int create_repo(git_repository **out, const char *path)
{
	_cleanup_free_ char *parent = strdup(path);
	_cleanup_close_ int fd = -1;
	git_repository_init_options o;
	char *slash;
	int rc;

	if (!parent)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	while ((slash = strrchr(parent, '/')) && slash[1] == '\0' && slash != parent)
		*slash = '\0'; /* trailing slashes */
	slash = strrchr(parent, '/');
	if (!slash)
		strcpy(parent, ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	if ((rc = tg_mkdir_p(parent, 0755)) < 0)
		return tg_error_prefix("create store %s", path);
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "create store %s: open %s", path, parent);
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return tg_error_errno(TG_ERR_IO, errno, "create store %s: flock %s", path, parent);
	if (open_repo(out, path) == 0)
		return 0; /* made by another process meanwhile */
	git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	o.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
	o.initial_head = "main";
	if ((rc = git_repository_init_ext(out, path, &o)) < 0)
		return st_git_fail(rc, "create store %s", path);
	return 0; /* the flock goes with fd */
}

int tg_store_open(tg_store **out, const char *path, int create)
{
	tg_store *s;
	_cleanup_free_ char *lockpath = NULL;
	int rc;

	*out = NULL;
	if (!path || !*path)
		return tg_error_set(TG_ERR_INVALID, "store path: empty");
	rc = tg_git_load();
	if (rc < 0)
		return rc;
	if (git_libgit2_init() < 0)
		return st_git_fail(-1, "libgit2 init");
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, st_fsync_enabled);
	s = calloc(1, sizeof(*s));
	if (!s) {
		git_libgit2_shutdown();
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	s->lock_fd = -1;
	if (!(s->path = strdup(path))) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (create == TG_STORE_OPEN_READONLY)
		/* a home of another user read as it is (a read-only home): the
		 * store is the one --home names, never one found by a search,
		 * and libgit2 runs nothing of a repository (no hooks) */
		(void)git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	rc = open_repo(&s->repo, path);
	if (rc == 0 && create == TG_STORE_OPEN_READONLY) {
		*out = s; /* lock_fd stays -1: st_lock_* refuse every write */
		return 0;
	}
	if (rc == GIT_ENOTFOUND && create == 1) {
		if ((rc = create_repo(&s->repo, path)) < 0)
			goto fail;
	} else if (rc < 0) {
		rc = st_git_fail(rc, "open store %s", path);
		goto fail;
	}
	if (!git_repository_is_bare(s->repo)) {
		rc = tg_error_set(TG_ERR_INVALID, "store %s: not a bare repository", path);
		goto fail;
	}
	lockpath = tg_path_join(path, ST_LOCK_FILE);
	if (!lockpath) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	s->lock_fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (s->lock_fd < 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "open %s", lockpath);
		goto fail;
	}
	st_clear_stale_locks(s);
	tg_store_sweep(path);
	if ((rc = configure(s)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	tg_store_free(s);
	return rc;
}

void tg_store_sweep(const char *path)
{
	st_quarantine_sweep(path);
	st_pack_sweep(path);
}

void tg_store_free(tg_store *s)
{
	if (!s)
		return;
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	st_snapshot_drop(s);
	git_repository_free(s->repo);
	free(s->path);
	free(s->sign_key);
	free(s);
	git_libgit2_shutdown();
}
