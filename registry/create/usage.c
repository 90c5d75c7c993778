/*
 * registry/create/usage.c: the bytes charged to one tool and to one MCP session
 * (issue 15; config quota_tool_mb and quota_session_mb, docs/CONFIG.md
 * "Quotas"). A version is charged its store bytes, recorded by the create
 * that stored it (the usage table: the source, tool.json and the analysis
 * report as stored, before compression), plus the disk blocks of its build
 * in cache/ while that build is there (a build shared by versions of the
 * same content is charged once per tool or session). A tool's charge is
 * the sum over all its versions, rejected and failed ones too; a session's
 * over the versions it submitted (versions.submitter, "mcp:<session>").
 * Both are checked before any build (quota.c); past one, the create is
 * refused naming the quota and nothing is written. Also the disk use of a
 * folder (reg_dir_usage), which quota.c and cache.c count with.
 */
#include "registry/create/create.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>


/* Sum of the allocated bytes of everything below the folder fd (which it
 * closes); symbolic links are not followed. Depth is bounded. */
static void walk(int fd, uint64_t *bytes, uint64_t *files, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		*bytes += (uint64_t)st.st_blocks * 512u;
		if (S_ISDIR(st.st_mode) && depth < 16) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				walk(sub, bytes, files, depth + 1);
		} else {
			(*files)++;
		}
	}
	closedir(d);
}

int reg_dir_usage(const char *path, uint64_t *bytes, uint64_t *files)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t f = 0;

	*bytes = 0;
	if (files)
		*files = 0;
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return tg_error_errno(TG_ERR_IO, errno, "%s", path);
	}
	walk(fd, bytes, &f, 0);
	if (files)
		*files = f;
	return 0;
}


#define MIB (1024ull * 1024ull)

int reg_usage_record(tg_registry *r, int64_t tool_id, unsigned version, size_t source_len,
		     const json_t *manifest, const json_t *analysis)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *m = tg_json_dump(manifest), *a = tg_json_dump(analysis);
	int rc;

	if (!m || !a)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, "INSERT OR REPLACE INTO usage(version_id, store_bytes) SELECT id, "
				 "?3 FROM versions WHERE tool_id = ?1 AND version = ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, tool_id);
	sqlite3_bind_int64(st, 2, version);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)(source_len + strlen(m) + strlen(a)));
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "record usage");
}

/* Disk blocks of the build of content hash h, if cached (0 otherwise). */
static uint64_t cache_bytes(tg_registry *r, const char *h)
{
	_cleanup_free_ char *dir = NULL;
	uint64_t bytes = 0;
	char key[65];

	if (!h || reg_cache_key(key, h, r) < 0) {
		tg_error_clear();
		return 0;
	}
	if (!(dir = tg_path_join(r->cache_dir, key)) || reg_dir_usage(dir, &bytes, NULL) < 0) {
		tg_error_clear();
		return 0;
	}
	return bytes;
}

/* Charge one version to group g of acc ({"g": bytes}); seen ({"g\nhash":
 * true}) makes a shared build count once per group. */
static int charge(json_t *acc, json_t *seen, const char *g, const char *hash, uint64_t store,
		  tg_registry *r)
{
	char k[400];
	uint64_t total = store;

	snprintf(k, sizeof(k), "%.300s\n%.64s", g, hash ? hash : "");
	if (hash && !json_object_get(seen, k)) {
		if (json_object_set_new(seen, k, json_true()) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		total += cache_bytes(r, hash);
	}
	total += (uint64_t)json_integer_value(json_object_get(acc, g));
	if (json_object_set_new(acc, g, json_integer((json_int_t)total)) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

/* by_tool: the versions of tool_id, else those submitted by submitter. */
static int use_of(tg_registry *r, int by_tool, int64_t tool_id, const char *submitter,
		  uint64_t *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *acc = json_object(), *seen = json_object();
	int rc;

	*out = 0;
	if (!acc || !seen)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, by_tool ? "SELECT v.content_hash, coalesce(u.store_bytes, 0) FROM "
					   "versions v LEFT JOIN usage u ON u.version_id = v.id "
					   "WHERE v.tool_id = ?1"
					 : "SELECT v.content_hash, coalesce(u.store_bytes, 0) FROM "
					   "versions v LEFT JOIN usage u ON u.version_id = v.id "
					   "WHERE v.submitter = ?2");
	if (rc < 0)
		return rc;
	if (by_tool)
		sqlite3_bind_int64(st, 1, tool_id);
	else
		reg_bind_text(st, 2, submitter);
	while ((rc = reg_step(st)) == SQLITE_ROW)
		if ((rc = charge(acc, seen, "x", (const char *)sqlite3_column_text(st, 0),
				 (uint64_t)sqlite3_column_int64(st, 1), r)) < 0)
			return rc;
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "sum usage");
	*out = (uint64_t)json_integer_value(json_object_get(acc, "x"));
	return 0;
}

static void fmt_mib(char *buf, size_t n, uint64_t bytes)
{
	snprintf(buf, n, "%.1f MiB", (double)bytes / (double)MIB);
}

int reg_usage_before_create(tg_registry *r, const char *name, const tg_actor *who)
{
	const tg_config *c = &r->cfg;
	char used[32], lim[32];
	uint64_t u = 0;
	int rc;

	if (c->quota_tool_mb) {
		int64_t id = 0;
		if ((rc = reg_tool_id(r, name, 0, &id)) < 0)
			return rc;
		if (id && (rc = use_of(r, 1, id, NULL, &u)) < 0)
			return rc;
		if (u >= (uint64_t)c->quota_tool_mb * MIB) {
			fmt_mib(used, sizeof(used), u);
			fmt_mib(lim, sizeof(lim), (uint64_t)c->quota_tool_mb * MIB);
			return tg_error_set(TG_ERR_DENIED, "quota exceeded: quota_tool_mb: %s holds %s "
							   "(store and cache) of its %s: nothing was "
							   "built or stored",
					    name, used, lim);
		}
	}
	if (c->quota_session_mb && who && who->session && who->session[0]) {
		_cleanup_free_ char *actor = reg_actor_string(who);
		if (!actor)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		if ((rc = use_of(r, 0, 0, actor, &u)) < 0)
			return rc;
		if (u >= (uint64_t)c->quota_session_mb * MIB) {
			fmt_mib(used, sizeof(used), u);
			fmt_mib(lim, sizeof(lim), (uint64_t)c->quota_session_mb * MIB);
			return tg_error_set(TG_ERR_DENIED, "quota exceeded: quota_session_mb: this "
							   "session's submissions hold %s (store and "
							   "cache) of its %s: nothing was built or stored",
					    used, lim);
		}
	}
	return 0;
}

/* The largest entry of acc: {"name"|"session": key, "used_bytes"}. */
static json_t *largest(json_t *acc, const char *label, uint32_t quota_mb)
{
	const char *k, *top = NULL;
	json_int_t best = -1;
	json_t *v;

	json_object_foreach(acc, k, v) {
		if (json_integer_value(v) > best) {
			best = json_integer_value(v);
			top = k;
		}
	}
	return json_pack("{s:o, s:I, s:I}", label, top ? json_string(top) : json_null(),
			 "used_bytes", (json_int_t)(best < 0 ? 0 : best), "quota_bytes",
			 (json_int_t)((uint64_t)quota_mb * MIB));
}

int reg_usage_status(tg_registry *r, json_t *res)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *tools = json_object(), *sessions = json_object();
	_cleanup_json_ json_t *seen = json_object();
	int rc;

	if (!tools || !sessions || !seen)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, "SELECT t.name, v.submitter, v.content_hash, "
				 "coalesce(u.store_bytes, 0) FROM versions v JOIN tools t ON t.id = "
				 "v.tool_id LEFT JOIN usage u ON u.version_id = v.id");
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *tool = (const char *)sqlite3_column_text(st, 0);
		const char *sub = (const char *)sqlite3_column_text(st, 1);
		const char *hash = (const char *)sqlite3_column_text(st, 2);
		uint64_t store = (uint64_t)sqlite3_column_int64(st, 3);
		char g[300];
		if (!tool)
			continue;
		snprintf(g, sizeof(g), "t:%.200s", tool);
		if ((rc = charge(tools, seen, g, hash, store, r)) < 0)
			return rc;
		/* sessions: MCP submitters only ("mcp:..." with a session) */
		if (sub && strncmp(sub, "mcp:", 4) == 0 && sub[4]) {
			snprintf(g, sizeof(g), "s:%.290s", sub);
			if ((rc = charge(sessions, seen, g, hash, store, r)) < 0)
				return rc;
		}
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "sum usage");
	{
		/* strip the group prefixes for the answer */
		_cleanup_json_ json_t *t2 = json_object(), *s2 = json_object();
		const char *k;
		json_t *v;
		if (!t2 || !s2)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		json_object_foreach(tools, k, v)
			json_object_set(t2, k + 2, v);
		json_object_foreach(sessions, k, v)
			json_object_set(s2, k + 2, v);
		if (json_object_set_new(res, "tool_bytes", largest(t2, "tool", r->cfg.quota_tool_mb)) <
			    0 ||
		    json_object_set_new(res, "session_bytes",
					largest(s2, "session", r->cfg.quota_session_mb)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return 0;
}
