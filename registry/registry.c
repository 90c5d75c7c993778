/*
 * registry/registry.c: the registry handle. Opening a home (creating it
 * when asked: store.git, registry.db, cache/), the config, the SDK include
 * folder handed to the analyzer and the compiler, the toolset generation
 * and the public audit entry point.
 *
 * The open is on the path of every CLI command, `toolgate call` included,
 * so it does the least it safely can: it computes the store's fingerprint
 * (tg_store_fingerprint: stat calls, no libgit2) and, when it equals the one
 * recorded in meta by the last complete re-index, it neither opens the
 * store nor re-indexes: nothing changed in the store since SQLite was
 * brought up to it. Otherwise it opens the store, re-indexes and records
 * the fingerprint computed BEFORE the re-index (a change racing with the
 * re-index makes the next open re-index again). Our own writes (create,
 * rollback, approve, activations by the re-index) do not record anything:
 * they leave meta's fingerprint stale, and the next open re-indexes, which
 * is cheap when nothing is missing. Why this is sound: docs/REGISTRY.md.
 */
#include "registry/replica/replica.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The SDK folder beside the binary (tg_sdk_dir), or NULL when it is
 * missing: opening a home does not need it; vetting and building do
 * (reg_need_sdk). */
static char *sdk_include_dir(void)
{
	char *dir = NULL;

	if (tg_sdk_dir(&dir) < 0)
		tg_error_clear();
	return dir;
}


/* Is registry.db-wal at most REG_WAL_KEEP_BYTES (or absent)? Each process
 * that opens the database first rebuilds the WAL index by reading the whole
 * WAL (~3 us a page), and a WAL is only reset by a checkpoint that the same
 * connection follows with a write, or deleted by a checkpoint at the close
 * of the last connection: so a handle that would leave a longer WAL closes
 * with the checkpoint (about one call in 60 pays it). */
static int wal_is_short(const tg_registry *r)
{
	char p[4096];
	struct stat st;

	if ((size_t)snprintf(p, sizeof(p), "%s-wal", r->db_path) >= sizeof(p))
		return 0;
	return stat(p, &st) != 0 || st.st_size <= (off_t)REG_WAL_KEEP_BYTES;
}

void tg_registry_free(tg_registry *r)
{
	if (!r)
		return;
	reg_stmt_cache_free(r); /* no statement may outlive the connection */
	if (r->db) {
		if (r->in_txn)
			sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		/* nothing fsynced by this handle and a short WAL: leave it for
		 * a later checkpoint instead of paying its fsyncs now */
		if (!r->durable_writes && wal_is_short(r))
			sqlite3_db_config(r->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
		sqlite3_close_v2(r->db);
	}
	if (r->wal_fd >= 0)
		close(r->wal_fd);
	reg_anchor_drop(r);
	reg_review_drop(r);
	reg_audit_mirror_free(r);
	tg_store_free(r->store);
	free(r->store_path);
	tg_policy_free(r->policy);
	reg_config_clear(&r->cfg);
	free(r->home);
	free(r->db_path);
	free(r->cache_dir);
	free(r->anchor_path);
	free(r->sdk_include);
	json_decref(r->repairs);
	json_decref(r->reindex_problems);
	reg_schema_cache_free(r->schemas);
	reg_replay_free(r);
	free(r);
}



/* Record fp as the store state SQLite is up to date with. Without fsync:
 * losing it on power loss costs one re-index, nothing else. */
static int record_fingerprint(tg_registry *r, const char *fp)
{
	return reg_meta_set_text(r, "store_fingerprint", fp); /* autocommit: no barrier */
}

/* Does the fingerprint recorded in meta equal fp? */
static int fingerprint_matches(tg_registry *r, const char *fp)
{
	_cleanup_free_ char *have = NULL;
	int rc = reg_meta_get_text(r, "store_fingerprint", &have);

	if (rc < 0)
		return rc;
	return rc > 0 && strcmp(have, fp) == 0;
}

/* The transaction hooks (db/txn.c calls them; the layers that keep state
 * pending for a transaction own what they do). */
static void txn_begun(tg_registry *r)
{
	reg_review_drop(r);
	reg_audit_mirror_drop(r);
}

static void txn_committed(tg_registry *r, int durable)
{
	/* The transaction is durable; an anchor that could not be advanced
	 * only lags behind, which verify accepts. Failing here would report a
	 * committed operation as failed. */
	if (durable && r->audit_seq_pending > 0 && reg_audit_anchor_update(r) < 0)
		tg_error_clear();
	reg_review_flush(r);
	reg_audit_mirror_flush(r);
}

static void txn_rolled_back(tg_registry *r)
{
	reg_review_drop(r);
	reg_audit_mirror_drop(r);
	reg_activation_undo(r);
}

static const reg_txn_hooks txn_hooks = {
	.begun = txn_begun,
	.committed = txn_committed,
	.rolled_back = txn_rolled_back,
};

/* Can this process write the home? 0, or TG_ERR_UNAVAILABLE naming why:
 * the one place that decides it (a missing part is made later and is not
 * looked at). EROFS whether access(2) or the mount flags say it. */
static int home_writable(const tg_registry *r)
{
	const char *const parts[] = { r->home, r->store_path, r->db_path, r->cache_dir };
	struct statvfs vfs;
	size_t i;
	int e;

	for (i = 0; i < TG_ARRAY_SIZE(parts); i++) {
		if (access(parts[i], F_OK) != 0 || access(parts[i], W_OK) == 0)
			continue;
		e = errno;
		if (e == EROFS || (statvfs(parts[i], &vfs) == 0 && (vfs.f_flag & ST_RDONLY)))
			return tg_error_set(TG_ERR_UNAVAILABLE, "the home at %s is read-only (EROFS)",
					    r->home);
		return tg_error_set(TG_ERR_UNAVAILABLE, "the home at %s is not writable by this "
				    "user: %s: %s%s", r->home, parts[i], strerror(e),
				    e == EACCES ? " (EACCES)" : "");
	}
	return 0;
}

/* The open of a home this process cannot write, for a command that only
 * reads: registry.db read-only as it is (db/open.c), then the store
 * compared with it without writing (replica/reindex.c): a registry that
 * lacks what the store holds is an error, not something to repair here. */
static int open_readonly(tg_registry *r, int verifying)
{
	const json_t *p;
	size_t i;
	char fp[65];
	int rc, fresh = 0;

	r->readonly = 1;
	rc = reg_config_load(&r->cfg, r->home);
	if (rc < 0)
		return rc;
	if ((rc = reg_db_open(r, &fresh)) < 0)
		return rc;
	if (verifying)
		return 0; /* verify compares in full itself (without writing) */
	if (tg_store_fingerprint(fp, r->store_path) == 0) {
		rc = fingerprint_matches(r, fp);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	tg_error_clear();
	rc = reg_reindex(r, 0);
	if (rc < 0)
		return rc;
	r->reindexed = 1;
	json_array_foreach(r->reindex_problems, i, p) {
		/* the first tool found behind (reindex.c); not a damaged one */
		const char *line = json_string_value(p);
		if (r->behind > 0 && line && strstr(line, "and the home is read-only"))
			return tg_error_set(TG_ERR_UNAVAILABLE, "%s (a command on a writable "
					    "home re-indexes it)", line);
	}
	return 0;
}

int tg_registry_open(tg_registry **out, const char *home, int create)
{
	int verifying = (create & TG_REGISTRY_OPEN_VERIFY) != 0;
	int reading = (create & TG_REGISTRY_OPEN_READONLY) != 0;
	tg_registry *r;
	tg_store *s;
	struct stat st;
	char fp[65];
	int rc, fprc, fresh = 0;

	*out = NULL;
	if (!home || !home[0])
		return tg_error_set(TG_ERR_INVALID, "no home folder given");
	r = calloc(1, sizeof(*r));
	if (!r)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r->wal_fd = -1;
	r->anchor_fd = -1;
	r->txn_hooks = &txn_hooks;
	r->call_tool = reg_call_ex;
	r->home = strdup(home);
	r->db_path = tg_path_join(home, "registry.db");
	r->cache_dir = tg_path_join(home, "cache");
	r->anchor_path = tg_path_join(home, "audit.anchor");
	r->sdk_include = sdk_include_dir();
	r->repairs = json_array();
	r->reindex_problems = json_array();
	r->store_path = tg_path_join(home, "store.git");
	if (!r->home || !r->db_path || !r->cache_dir || !r->anchor_path ||
	    !r->repairs || !r->reindex_problems || !r->store_path) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	create &= 1;
	if (!create && stat(r->store_path, &st) != 0) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "no toolgate home at %s (run 'toolgate init')",
				  home);
		goto fail;
	}
	/* before anything is made, swept or opened for writing */
	if ((rc = home_writable(r)) < 0) {
		if (!reading)
			goto fail;
		tg_error_clear();
		if ((rc = open_readonly(r, verifying)) < 0)
			goto fail;
		*out = r;
		return 0;
	}
	if (create) {
		if ((rc = tg_mkdir_p(home, 0700)) < 0)
			goto fail;
	}
	if ((rc = tg_mkdir_p(r->cache_dir, 0700)) < 0)
		goto fail;
	/* build and scratch folders of processes that died (cache.c) */
	reg_sweep_workdirs(r);
	/* a killed pull's quarantine, a killed gc's temporary pack: commands
	 * such as list and call never open the store (store/open.c) */
	tg_store_sweep(r->store_path);
	rc = reg_config_load(&r->cfg, home);
	if (rc < 0)
		goto fail;
	if (verifying) {
		/* tg_registry_verify re-indexes in full whatever a fingerprint
		 * would say (after reading every ref once): neither here, unless
		 * registry.db is new (its rebuild is the open's) */
		rc = reg_db_open(r, &fresh);
		if (rc < 0)
			goto fail;
		if (!fresh) {
			*out = r;
			return 0;
		}
	}
	/* the fingerprint first: a store change after it is seen next time */
	fprc = tg_store_fingerprint(fp, r->store_path);
	if (fprc < 0)
		tg_error_clear(); /* no store yet (created below) or unreadable */
	if (!verifying && (rc = reg_db_open(r, &fresh)) < 0)
		goto fail;
	if (fprc == 0 && !fresh) {
		rc = fingerprint_matches(r, fp);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			goto done; /* SQLite is up to date with the store */
	}
	rc = reg_store(r, &s);
	if (rc < 0)
		goto fail;
	if (fprc < 0) {
		/* the store was just made: nothing can have been indexed from it */
		fprc = tg_store_fingerprint(fp, r->store_path);
		if (fprc < 0)
			tg_error_clear();
	}
	rc = reg_reindex(r, fresh);
	if (rc < 0) {
		tg_error_prefix("re-index from the store");
		goto fail;
	}
	r->reindexed = 1;
	/* a tool the re-index could not index keeps the next open trying */
	if (fprc == 0 && json_array_size(r->reindex_problems) == 0 &&
	    record_fingerprint(r, fp) < 0)
		tg_error_clear(); /* only costs a re-index next time */
done:
	/* a command that only reads cannot write what the open left */
	if (reading && !verifying && (rc = reg_exec(r, "PRAGMA query_only = ON")) < 0)
		goto fail;
	*out = r;
	return 0;
fail:
	tg_registry_free(r);
	return rc;
}

const tg_config *tg_registry_config(const tg_registry *r)
{
	return &r->cfg;
}

int tg_registry_toolset_generation(uint64_t *out, tg_registry *r)
{
	int64_t g = 0;
	int rc = reg_meta_get_int(r, "generation", &g);

	if (rc < 0)
		return rc;
	*out = (uint64_t)g;
	return 0;
}



int tg_registry_open_flag(tg_registry **out, const char *home_flag, int create)
{
	_cleanup_free_ char *home = NULL;
	int rc = tg_home_resolve(&home, home_flag);

	*out = NULL;
	if (rc < 0)
		return rc;
	return tg_registry_open(out, home, create);
}

int tg_registry_parse_ref(char **out_name, unsigned *version, const char *ref)
{
	const char *at = strchr(ref, '@');
	size_t n = at ? (size_t)(at - ref) : strlen(ref);
	unsigned long v = 0;
	char *end = NULL;
	char *name;

	*out_name = NULL;
	*version = 0;
	if (at) {
		if (!at[1] || at[1] < '1' || at[1] > '9')
			return tg_error_set(TG_ERR_INVALID, "version after '@' must be a positive number");
		errno = 0;
		v = strtoul(at + 1, &end, 10);
		if (errno || *end || v > 1000000000ul)
			return tg_error_set(TG_ERR_INVALID, "version after '@' must be a positive number");
	}
	if (n == 0 || n > 64)
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name");
	name = strndup(ref, n);
	if (!name)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!tg_name_valid(name)) {
		free(name);
		return tg_error_set(TG_ERR_INVALID, "not a valid tool name (^[a-z][a-z0-9_]{0,63}$)");
	}
	*out_name = name;
	*version = (unsigned)v;
	return 0;
}

