/*
 * registry/create/quota.c: what a home may hold (docs/CONFIG.md, "Quotas"), and
 * `toolgate status`. Three quotas, each a config.json key (0 = unlimited):
 * quota_home_mb (store.git + cache/ + registry.db with its -wal and -shm,
 * in disk blocks, checked before any build), max_binary_mb (one built binary, checked right after the build,
 * before anything is cached or stored), max_rejected_per_tool_hour
 * (versions of one tool that were rejected or failed in the last hour,
 * checked before any build). Past a quota the submission is refused with
 * TG_ERR_DENIED naming the quota and its config key (exit 1, an isError
 * result over MCP); nothing is written but a "create_refused" audit entry.
 * The create rate limits (home_max_creates_per_minute, and
 * session_max_creates_per_minute for an MCP session) count the audit log's
 * create_intent entries of the last minute, so they hold across processes.
 */
#include "registry/create/create.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#define MIB (1024ull * 1024ull)
int reg_home_usage(tg_registry *r, uint64_t *store, uint64_t *cache, uint64_t *db)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	int rc = reg_dir_usage(r->store_path, store, NULL);
	size_t i;

	if (rc < 0 || (rc = reg_dir_usage(r->cache_dir, cache, NULL)) < 0)
		return rc;
	/* registry.db grows with the audit and call logs: a flood of calls
	 * fills the disk as surely as a flood of versions */
	*db = 0;
	for (i = 0; i < TG_ARRAY_SIZE(sfx); i++) {
		char p[PATH_MAX];
		struct stat st;
		if ((size_t)snprintf(p, sizeof(p), "%s%s", r->db_path, sfx[i]) < sizeof(p) &&
		    lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			*db += (uint64_t)st.st_blocks * 512u;
	}
	return 0;
}

/* Versions of tool_id rejected or failed since 'since' (unix time). */
static int rejected_since(tg_registry *r, int64_t tool_id, int64_t since, uint32_t *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT count(*) FROM versions WHERE tool_id = ?1 AND "
				     "status IN ('rejected', 'failed') AND created_at >= ?2");

	*out = 0;
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, since);
	rc = reg_step(st);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "count rejected versions");
	*out = (uint32_t)sqlite3_column_int64(st, 0);
	return 0;
}

static void fmt_mib(char *buf, size_t n, uint64_t bytes)
{
	snprintf(buf, n, "%.1f MiB", (double)bytes / (double)MIB);
}

/* create_intent entries of the last minute: all of them, and those of
 * actor (NULL: none counted). Walks the audit log newest first and stops at
 * the first entry older than a minute, so the cost follows the last
 * minute's activity, not the log's size. */
static int creates_last_minute(tg_registry *r, const char *actor, uint32_t *all, uint32_t *mine)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int64_t since = tg_time_now() - 60;
	int rc = reg_prepare(r, &st, "SELECT at, event, actor FROM audit ORDER BY seq DESC");

	*all = *mine = 0;
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *ev = (const char *)sqlite3_column_text(st, 1);
		const char *who = (const char *)sqlite3_column_text(st, 2);
		if (sqlite3_column_int64(st, 0) < since)
			return 0;
		if (!ev || strcmp(ev, "create_intent") != 0)
			continue;
		(*all)++;
		if (actor && who && strcmp(who, actor) == 0)
			(*mine)++;
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "count recent creates");
	return 0;
}

int reg_rate_before_create(tg_registry *r, const tg_actor *who)
{
	const tg_config *c = &r->cfg;
	_cleanup_free_ char *actor = NULL;
	int session = who && who->session && who->session[0];
	uint32_t all = 0, mine = 0;
	int rc;

	if (!c->home_max_creates_per_minute && !(session && c->session_max_creates_per_minute))
		return 0;
	if (session && !(actor = reg_actor_string(who)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = creates_last_minute(r, actor, &all, &mine)) < 0)
		return rc;
	if (session && c->session_max_creates_per_minute &&
	    mine >= c->session_max_creates_per_minute)
		return tg_error_set(TG_ERR_DENIED,
				    "rate limit: session_max_creates_per_minute: this session "
				    "submitted %u tools in the last minute (at most %u): nothing was "
				    "built or stored; try again in a minute",
				    mine, c->session_max_creates_per_minute);
	if (c->home_max_creates_per_minute && all >= c->home_max_creates_per_minute)
		return tg_error_set(TG_ERR_DENIED,
				    "rate limit: home_max_creates_per_minute: %u tools were submitted "
				    "to this home in the last minute (at most %u): nothing was built or "
				    "stored; try again in a minute",
				    all, c->home_max_creates_per_minute);
	return 0;
}

int reg_quota_before_create(tg_registry *r, const char *name)
{
	const tg_config *c = &r->cfg;
	int rc;

	if (c->quota_home_mb) {
		uint64_t store = 0, cache = 0, db = 0, limit = (uint64_t)c->quota_home_mb * MIB;
		char used[32], lim[32];
		if ((rc = reg_home_usage(r, &store, &cache, &db)) < 0)
			return rc;
		if (store + cache + db >= limit) {
			fmt_mib(used, sizeof(used), store + cache + db);
			fmt_mib(lim, sizeof(lim), limit);
			return tg_error_set(TG_ERR_DENIED, "quota exceeded: quota_home_mb: the home "
							   "holds %s (store, cache and registry.db) "
							   "of its %s: nothing was built or stored",
					    used, lim);
		}
	}
	if (c->max_rejected_per_tool_hour) {
		int64_t id = 0;
		uint32_t n = 0;
		if ((rc = reg_tool_id(r, name, 0, &id)) < 0)
			return rc;
		if (id && (rc = rejected_since(r, id, tg_time_now() - 3600, &n)) < 0)
			return rc;
		if (n >= c->max_rejected_per_tool_hour)
			return tg_error_set(TG_ERR_DENIED, "quota exceeded: max_rejected_per_tool_hour: "
							   "%u versions of %s were rejected or failed in "
							   "the last hour (at most %u): nothing was built "
							   "or stored; try again later",
					    n, name, c->max_rejected_per_tool_hour);
	}
	return 0;
}

uint64_t reg_quota_binary_bytes(const tg_registry *r)
{
	return (uint64_t)r->cfg.max_binary_mb * MIB;
}

int reg_quota_binary_stopped(tg_registry *r)
{
	char lim[32];

	fmt_mib(lim, sizeof(lim), reg_quota_binary_bytes(r));
	return tg_error_set(TG_ERR_DENIED, "quota exceeded: max_binary_mb: the build's output "
					   "grew past the %s limit (the compiler was stopped there): "
					   "nothing was cached or stored",
			    lim);
}

int reg_quota_binary(tg_registry *r, const char *binary)
{
	uint64_t limit = (uint64_t)r->cfg.max_binary_mb * MIB;
	struct stat st;
	char got[32], lim[32];

	if (!r->cfg.max_binary_mb)
		return 0;
	if (lstat(binary, &st) != 0)
		return tg_error_errno(TG_ERR_IO, errno, "%s", binary);
	if ((uint64_t)st.st_size <= limit)
		return 0;
	fmt_mib(got, sizeof(got), (uint64_t)st.st_size);
	fmt_mib(lim, sizeof(lim), limit);
	return tg_error_set(TG_ERR_DENIED, "quota exceeded: max_binary_mb: the built binary is %s "
					   "(%lld bytes), over the %s limit: nothing was cached or "
					   "stored",
			    got, (long long)st.st_size, lim);
}

/* The largest cache/<key>/tool and the number of cached builds. */
static void cache_builds(tg_registry *r, uint64_t *largest, uint64_t *builds)
{
	DIR *d = opendir(r->cache_dir);
	struct dirent *e;

	*largest = 0;
	*builds = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char p[160];
		if (e->d_name[0] == '.' || strlen(e->d_name) != 64)
			continue;
		snprintf(p, sizeof(p), "%.64s/tool", e->d_name); /* 64 hex digits */
		if (fstatat(dirfd(d), p, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		(*builds)++;
		if ((uint64_t)st.st_size > *largest)
			*largest = (uint64_t)st.st_size;
	}
	closedir(d);
}

int tg_registry_status(json_t **out, tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *res = NULL, *top = json_null();
	_cleanup_free_ char *rebuilt = NULL, *ack = NULL;
	const tg_config *c = &r->cfg;
	uint64_t store = 0, cache = 0, db = 0, largest = 0, builds = 0;
	int64_t highest = 0;
	size_t loose = 0, packs = 0;
	tg_store *s;
	int rc, unacked = 0;

	*out = NULL;
	if ((rc = reg_home_usage(r, &store, &cache, &db)) < 0)
		return rc;
	cache_builds(r, &largest, &builds);
	rc = reg_prepare(r, &st, "SELECT t.name, count(*) AS n FROM versions v JOIN tools t ON "
				 "t.id = v.tool_id WHERE v.status IN ('rejected', 'failed') AND "
				 "v.created_at >= ?1 GROUP BY t.id ORDER BY n DESC, t.name LIMIT 1");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tg_time_now() - 3600);
	rc = reg_step(st);
	if (rc == SQLITE_ROW) {
		json_decref(top);
		top = json_string((const char *)sqlite3_column_text(st, 0));
		highest = sqlite3_column_int64(st, 1);
	} else if (rc != SQLITE_DONE) {
		return reg_sqlerr(r, rc, "count rejected versions");
	}
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if ((rc = tg_store_object_counts(s, &loose, &packs)) < 0)
		return tg_error_prefix("store");
	if ((rc = reg_meta_get_text(r, "rebuilt_at", &rebuilt)) < 0)
		return rc;
	if (rc > 0) {
		if ((rc = reg_meta_get_text(r, "rebuild_acknowledged", &ack)) < 0)
			return rc;
		unacked = !(rc > 0 && strcmp(ack, rebuilt) == 0);
	}
	res = json_pack("{s:{s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:I}, s:{s:I, s:O, s:I},"
			" s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}, s:b}",
			"home", "used_bytes", (json_int_t)(store + cache + db), "store_bytes",
			(json_int_t)store, "cache_bytes", (json_int_t)cache, "db_bytes",
			(json_int_t)db, "quota_bytes",
			(json_int_t)((uint64_t)c->quota_home_mb * MIB),
			"binary", "largest_bytes", (json_int_t)largest, "limit_bytes",
			(json_int_t)((uint64_t)c->max_binary_mb * MIB),
			"rejected_per_tool_hour", "highest", (json_int_t)highest, "tool", top,
			"limit", (json_int_t)c->max_rejected_per_tool_hour,
			"cache", "bytes", (json_int_t)cache, "builds", (json_int_t)builds,
			"budget_bytes", (json_int_t)((uint64_t)c->cache_budget_mb * MIB),
			"store", "loose_objects", (json_int_t)loose, "packs", (json_int_t)packs,
			"pack_threshold", (json_int_t)c->pack_loose_objects,
			"rebuild_unacknowledged", unacked);
	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	{
		/* the CPU share of build and run sandboxes, and whether this
		 * host enforces it (a cgroup cpu controller) */
		char how[200] = "";
		int on = c->cpu_percent ? tg_sandbox_cpu_limit(how, sizeof(how), c->cpu_percent)
					: 0;
		if (!c->cpu_percent)
			snprintf(how, sizeof(how), "cpu_percent is 0: no CPU limit");
		if (json_object_set_new(res, "cpu", json_pack("{s:I, s:b, s:s}", "percent",
							      (json_int_t)c->cpu_percent,
							      "enforced", on, "how", how)) < 0 ||
		    json_object_set_new(res, "concurrency",
					json_pack("{s:I, s:I}", "max_concurrent_runs",
						  (json_int_t)c->max_concurrent_runs,
						  "max_concurrent_builds",
						  (json_int_t)c->max_concurrent_builds)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if ((rc = reg_usage_status(r, res)) < 0)
		return rc;
	if ((rc = reg_status_overview(r, res)) < 0)
		return rc;
	*out = TG_TAKE_PTR(res);
	return 0;
}
