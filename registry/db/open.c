/*
 * registry/db/open.c: opening registry.db (WAL, foreign keys, a busy
 * handler, extended codes), the schema migrations keyed by PRAGMA
 * user_version (a database newer than this binary is refused) and the
 * database's id.
 *
 * A handle that committed no transaction (reads, the call log, the store
 * fingerprint: writes without fsync) closes without checkpointing the WAL
 * while it is short (tg_registry_free), so that `toolgate call` pays no
 * fsync: registry.db-wal and -shm then stay next to registry.db between
 * commands, as they do whenever `toolgate serve` is running. They belong to registry.db (copy
 * or move the three together); a registry.db deleted alone is still rebuilt
 * cleanly: SQLite deletes a WAL it finds next to an empty database file
 * before using it (pagerOpenWalIfPresent), and a database in WAL mode is
 * never empty.
 */
#include "registry/db/db.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define REG_BUSY_TIMEOUT_MS 10000

/* Migration n brings user_version n-1 to n. STRICT tables; derived data
 * (tools, versions, findings, test_results, events) can be rebuilt from the
 * store; approvals, calls and audit live only here. */
static const char *const migrations[] = {
	NULL,
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value ANY) STRICT;"
	"CREATE TABLE tools("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL UNIQUE,"
	" active_version INTEGER NOT NULL DEFAULT 0,"
	" approved_caps TEXT NOT NULL DEFAULT '[]',"
	" approved_version INTEGER NOT NULL DEFAULT 0,"
	" created_at INTEGER NOT NULL) STRICT;"
	"CREATE TABLE versions("
	" id INTEGER PRIMARY KEY,"
	" tool_id INTEGER NOT NULL REFERENCES tools(id),"
	" version INTEGER NOT NULL CHECK(version > 0),"
	" status TEXT NOT NULL CHECK(status IN ('rejected','failed','pending','active','inactive')),"
	" verdict TEXT NOT NULL CHECK(verdict IN ('pass','reject')),"
	" reason TEXT NOT NULL DEFAULT '',"
	" commit_id TEXT NOT NULL,"
	" content_hash TEXT NOT NULL,"
	" submitter TEXT NOT NULL DEFAULT '',"
	" created_at INTEGER NOT NULL,"
	" description TEXT NOT NULL,"
	" input_schema TEXT NOT NULL,"
	" capabilities TEXT NOT NULL,"
	" limits TEXT NOT NULL,"
	" analysis TEXT NOT NULL,"
	" tests TEXT NOT NULL,"
	" UNIQUE(tool_id, version)) STRICT;"
	"CREATE TABLE findings("
	" id INTEGER PRIMARY KEY,"
	" version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,"
	" stage TEXT NOT NULL,"
	" rule TEXT NOT NULL,"
	" severity TEXT NOT NULL,"
	" message TEXT NOT NULL,"
	" line INTEGER NOT NULL,"
	" col INTEGER NOT NULL,"
	" symbol TEXT) STRICT;"
	"CREATE INDEX findings_version ON findings(version_id);"
	"CREATE TABLE test_results("
	" id INTEGER PRIMARY KEY,"
	" version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" passed INTEGER NOT NULL CHECK(passed IN (0,1)),"
	" detail TEXT NOT NULL,"
	" wall_ms INTEGER NOT NULL) STRICT;"
	"CREATE INDEX test_results_version ON test_results(version_id);"
	"CREATE TABLE approvals("
	" id INTEGER PRIMARY KEY,"
	" version_id INTEGER NOT NULL REFERENCES versions(id),"
	" capabilities TEXT NOT NULL,"
	" actor TEXT NOT NULL,"
	" at INTEGER NOT NULL) STRICT;"
	"CREATE TABLE events("
	" id INTEGER PRIMARY KEY,"
	" tool_id INTEGER NOT NULL REFERENCES tools(id),"
	" event TEXT NOT NULL,"
	" version INTEGER NOT NULL,"
	" from_version INTEGER NOT NULL,"
	" actor TEXT NOT NULL,"
	" at INTEGER NOT NULL) STRICT;"
	"CREATE INDEX events_tool ON events(tool_id);"
	"CREATE TABLE calls("
	" id INTEGER PRIMARY KEY,"
	" tool TEXT NOT NULL,"
	" version INTEGER NOT NULL,"
	" ok INTEGER NOT NULL,"
	" error TEXT,"
	" wall_ms INTEGER NOT NULL,"
	" actor TEXT NOT NULL,"
	" at INTEGER NOT NULL) STRICT;"
	"CREATE TABLE audit("
	" seq INTEGER PRIMARY KEY,"
	" at INTEGER NOT NULL,"
	" actor TEXT NOT NULL,"
	" event TEXT NOT NULL,"
	" tool TEXT,"
	" details TEXT,"
	" prev_hash TEXT NOT NULL,"
	" hash TEXT NOT NULL) STRICT;"
	"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
	" BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;"
	"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit"
	" BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;"
	"INSERT INTO meta(key, value) VALUES('generation', 1);",
	/* 2: approvals bind to one version (its approval hash, recomputed from
	 * the stored tool.json and tool.c, and its exact capability set); a
	 * version may be denied for good. Name-level approvals (tools.
	 * approved_caps, kept unused) no longer count: every passed version
	 * that asks for a capability and is not active becomes pending (an
	 * active one stays active, but calls refuse it until approved). The
	 * versions table is rebuilt for the new status 'denied' (foreign keys
	 * are off during migrations, see migrate()). */
	"CREATE TABLE versions_new("
	" id INTEGER PRIMARY KEY,"
	" tool_id INTEGER NOT NULL REFERENCES tools(id),"
	" version INTEGER NOT NULL CHECK(version > 0),"
	" status TEXT NOT NULL CHECK(status IN ('rejected','failed','pending','active','inactive',"
	"'denied')),"
	" verdict TEXT NOT NULL CHECK(verdict IN ('pass','reject')),"
	" reason TEXT NOT NULL DEFAULT '',"
	" commit_id TEXT NOT NULL,"
	" content_hash TEXT NOT NULL,"
	" submitter TEXT NOT NULL DEFAULT '',"
	" created_at INTEGER NOT NULL,"
	" description TEXT NOT NULL,"
	" input_schema TEXT NOT NULL,"
	" capabilities TEXT NOT NULL,"
	" limits TEXT NOT NULL,"
	" analysis TEXT NOT NULL,"
	" tests TEXT NOT NULL,"
	" UNIQUE(tool_id, version)) STRICT;"
	"INSERT INTO versions_new SELECT * FROM versions;"
	"DROP TABLE versions;"
	"ALTER TABLE versions_new RENAME TO versions;"
	"UPDATE versions SET status = 'pending', reason = 'its capabilities need approval of "
	"this exact version (approvals made before toolgate bound them to versions no longer "
	"count)' WHERE status = 'inactive' AND capabilities != '[]';"
	"ALTER TABLE approvals ADD COLUMN version INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE approvals ADD COLUMN approval_hash TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE approvals ADD COLUMN verified TEXT NOT NULL DEFAULT '';"
	"CREATE INDEX approvals_version ON approvals(version_id);"
	"CREATE TABLE denials("
	" id INTEGER PRIMARY KEY,"
	" version_id INTEGER NOT NULL REFERENCES versions(id),"
	" reason TEXT NOT NULL,"
	" actor TEXT NOT NULL,"
	" at INTEGER NOT NULL) STRICT;",
	/* 3: the manifest's output_schema of the versions that have one
	 * (issue 14); its own table, so the versions table keeps its columns.
	 * Idempotent: derived data, rebuilt from the store by re-index. */
	"CREATE TABLE IF NOT EXISTS output_schemas("
	" version_id INTEGER PRIMARY KEY REFERENCES versions(id) ON DELETE CASCADE,"
	" schema TEXT NOT NULL) STRICT;",
	/* 4: a call is logged before its tool runs (finished = 0, the intent)
	 * and completed after (finished = 1, the outcome): a row left at 0 is a
	 * call whose process died while the tool ran (calllog.c). */
	"ALTER TABLE calls ADD COLUMN finished INTEGER NOT NULL DEFAULT 1;",
	/* 5: the requestState ids of 2026-07-28 input_required results that
	 * were redeemed (request_state.c): a state is good for one retry.
	 * Rows are forgotten once expired (an expired state is refused first). */
	"CREATE TABLE IF NOT EXISTS used_request_states("
	" id TEXT PRIMARY KEY,"
	" principal TEXT NOT NULL,"
	" used_at INTEGER NOT NULL,"
	" expires_at INTEGER NOT NULL) STRICT;",
	/* 6: the store bytes a create charged to its version (issue 15,
	 * quota_tool_mb and quota_session_mb; quota.c); versions re-indexed
	 * from the store have no row (charged their cache bytes only). */
	"CREATE TABLE IF NOT EXISTS usage("
	" version_id INTEGER PRIMARY KEY REFERENCES versions(id) ON DELETE CASCADE,"
	" store_bytes INTEGER NOT NULL) STRICT;",
	/* 7: the journal of a 2026-07-28 input_required round (replay.c,
	 * request_state.c): the bridged calls that ran before the approval
	 * point, keyed by the requestState's id; its sha256 is sealed in the
	 * state. Deleted when redeemed, forgotten once expired. */
	"CREATE TABLE IF NOT EXISTS replay_journals("
	" sid TEXT PRIMARY KEY,"
	" principal TEXT NOT NULL,"
	" entries TEXT NOT NULL,"
	" created_at INTEGER NOT NULL,"
	" expires_at INTEGER NOT NULL) STRICT;"
	"CREATE INDEX IF NOT EXISTS replay_journals_expiry ON replay_journals(expires_at);",
	/* 8: recorded calls and shadow runs (record/samples.c, create/shadow.c).
	 * call_samples: a bounded sample of each tool's real calls, their bytes
	 * summed into call_samples_total by triggers (the home's cap is one row
	 * read). shadow_reports: what a new version did on them. The versions
	 * table is rebuilt for the status 'held' (a regression kept it out of
	 * the active slot; registry only, like 'denied'). Idempotent, as the
	 * tests replay migrations on a lowered user_version. */
	"CREATE TABLE IF NOT EXISTS call_samples("
	" id INTEGER PRIMARY KEY,"
	" tool TEXT NOT NULL,"
	" version INTEGER NOT NULL,"
	" args TEXT NOT NULL,"
	" ok INTEGER NOT NULL,"
	" result TEXT,"
	" error TEXT,"
	" reason TEXT NOT NULL,"
	" wall_ms INTEGER NOT NULL,"
	" bytes INTEGER NOT NULL,"
	" at INTEGER NOT NULL) STRICT;"
	"CREATE INDEX IF NOT EXISTS call_samples_tool ON call_samples(tool, id, bytes);"
	"CREATE TABLE IF NOT EXISTS call_samples_total(id INTEGER PRIMARY KEY CHECK(id = 1),"
	" bytes INTEGER NOT NULL) STRICT;"
	"INSERT OR IGNORE INTO call_samples_total VALUES(1, 0);"
	"CREATE TRIGGER IF NOT EXISTS call_samples_add AFTER INSERT ON call_samples BEGIN"
	" UPDATE call_samples_total SET bytes = bytes + NEW.bytes; END;"
	"CREATE TRIGGER IF NOT EXISTS call_samples_del AFTER DELETE ON call_samples BEGIN"
	" UPDATE call_samples_total SET bytes = bytes - OLD.bytes; END;"
	"CREATE TABLE IF NOT EXISTS shadow_reports("
	" id INTEGER PRIMARY KEY,"
	" tool TEXT NOT NULL,"
	" version INTEGER NOT NULL,"
	" held INTEGER NOT NULL,"
	" report TEXT NOT NULL,"
	" at INTEGER NOT NULL,"
	" UNIQUE(tool, version)) STRICT;"
	"DROP TABLE IF EXISTS versions_new;"
	"CREATE TABLE versions_new("
	" id INTEGER PRIMARY KEY,"
	" tool_id INTEGER NOT NULL REFERENCES tools(id),"
	" version INTEGER NOT NULL CHECK(version > 0),"
	" status TEXT NOT NULL CHECK(status IN ('rejected','failed','pending','active','inactive',"
	"'denied','held')),"
	" verdict TEXT NOT NULL CHECK(verdict IN ('pass','reject')),"
	" reason TEXT NOT NULL DEFAULT '',"
	" commit_id TEXT NOT NULL,"
	" content_hash TEXT NOT NULL,"
	" submitter TEXT NOT NULL DEFAULT '',"
	" created_at INTEGER NOT NULL,"
	" description TEXT NOT NULL,"
	" input_schema TEXT NOT NULL,"
	" capabilities TEXT NOT NULL,"
	" limits TEXT NOT NULL,"
	" analysis TEXT NOT NULL,"
	" tests TEXT NOT NULL,"
	" UNIQUE(tool_id, version)) STRICT;"
	"INSERT INTO versions_new SELECT * FROM versions;"
	"DROP TABLE versions;"
	"ALTER TABLE versions_new RENAME TO versions;",
	/* 9: the operator's sandbox backend per tool (record/backend.c,
	 * `toolgate backend`). Not derived from the store: a re-index keeps
	 * it, and so does `toolgate remove` (which keeps the tool's history). */
	"CREATE TABLE IF NOT EXISTS tool_backends("
	" tool TEXT PRIMARY KEY,"
	" backend TEXT NOT NULL CHECK(backend IN ('native','gvisor')),"
	" set_at INTEGER NOT NULL) STRICT;",
	/* 10: decisions of other hosts read from their signed review notes on
	 * pull (replica/decisions.c): one row per entry (sha256 of its line),
	 * its state here (followed, already, claim, refused) and why; and the
	 * revocation time of each approver key removed from trusted_approvers
	 * (record/approvers.c), against which later signatures are refused. */
	"CREATE TABLE IF NOT EXISTS remote_decisions("
	" entry TEXT PRIMARY KEY,"
	" tool TEXT NOT NULL,"
	" version INTEGER NOT NULL,"
	" decision TEXT NOT NULL,"
	" signer TEXT NOT NULL,"
	" principal TEXT NOT NULL,"
	" signed_at INTEGER NOT NULL,"
	" state TEXT NOT NULL,"
	" why TEXT NOT NULL,"
	" seen_at INTEGER NOT NULL) STRICT;"
	"CREATE INDEX IF NOT EXISTS remote_decisions_version ON remote_decisions(tool, version);"
	"CREATE TABLE IF NOT EXISTS approver_revocations("
	" key TEXT PRIMARY KEY,"
	" principal TEXT NOT NULL,"
	" at INTEGER NOT NULL) STRICT;",
	/* 11: the replies of a recorded call's bridged calls (record/samples.c),
	 * a shadow run's answers (create/shadow.c); deleted with their sample.
	 * Idempotent, as migration 8. */
	"CREATE TABLE IF NOT EXISTS sample_journals("
	" sample_id INTEGER PRIMARY KEY,"
	" entries TEXT NOT NULL) STRICT;"
	"CREATE TRIGGER IF NOT EXISTS sample_journals_del AFTER DELETE ON call_samples BEGIN"
	" DELETE FROM sample_journals WHERE sample_id = OLD.id; END;"
	/* the tests a person made of recorded calls (record/sample_tests.c):
	 * each later create of the tool runs them */
	"CREATE TABLE IF NOT EXISTS sample_tests("
	" id INTEGER PRIMARY KEY,"
	" tool TEXT NOT NULL,"
	" name TEXT NOT NULL,"
	" test TEXT NOT NULL,"
	" sample INTEGER NOT NULL,"
	" actor TEXT NOT NULL,"
	" at INTEGER NOT NULL,"
	" UNIQUE(tool, name)) STRICT;",
};

static int get_user_version(tg_registry *r, int *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "PRAGMA user_version");

	if (rc < 0)
		return rc;
	rc = reg_step(st);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read user_version");
	*out = sqlite3_column_int(st, 0);
	return 0;
}

/* PRAGMA foreign_key_check: a migration must leave no dangling reference. */
static int fk_check(tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "PRAGMA foreign_key_check");

	if (rc < 0)
		return rc;
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		return tg_error_set(TG_ERR_INTERNAL, "migration left a dangling reference in "
						     "table %s", sqlite3_column_text(st, 0));
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "foreign key check");
	return 0;
}

static int migrate(tg_registry *r, int *created)
{
	int v, rc, i;
	char sql[64];

	rc = get_user_version(r, &v);
	if (rc < 0)
		return rc;
	if (v > REG_SCHEMA_VERSION)
		return tg_error_set(TG_ERR_UNAVAILABLE,
				    "registry database %s has schema version %d, newer than this "
				    "toolgate understands (%d): upgrade toolgate",
				    r->db_path, v, REG_SCHEMA_VERSION);
	if (v == REG_SCHEMA_VERSION)
		return 0;
	/* a migration may rebuild a table that others reference (SQLite's
	 * "12-step" ALTER): foreign keys off meanwhile (it is a no-op inside a
	 * transaction), checked before COMMIT */
	rc = reg_exec(r, "PRAGMA foreign_keys = OFF");
	if (rc < 0)
		return rc;
	rc = reg_begin(r);
	if (rc < 0)
		goto out_fk;
	/* another process may have migrated meanwhile */
	rc = get_user_version(r, &v);
	if (rc < 0)
		goto fail;
	if (v == 0)
		*created = 1;
	for (i = v + 1; i <= REG_SCHEMA_VERSION; i++) {
		rc = reg_exec(r, migrations[i]);
		if (rc < 0) {
			tg_error_prefix("migration to schema version %d", i);
			goto fail;
		}
	}
	if (v < REG_SCHEMA_VERSION) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", REG_SCHEMA_VERSION);
		rc = reg_exec(r, sql);
		if (rc < 0)
			goto fail;
	}
	rc = fk_check(r);
	if (rc < 0)
		goto fail;
	rc = reg_commit(r);
	goto out_fk;
fail:
	reg_rollback(r);
out_fk:
	if (reg_exec(r, "PRAGMA foreign_keys = ON") < 0 && rc == 0)
		rc = tg_error_last()->code;
	return rc;
}

static int ensure_db_id(tg_registry *r)
{
	_cleanup_free_ char *id = NULL;
	unsigned char rnd[16];
	int rc, i;

	rc = reg_meta_get_text(r, "db_id", &id);
	if (rc < 0)
		return rc;
	if (rc > 0 && strlen(id) == 32) {
		memcpy(r->db_id, id, 33);
		return 0;
	}
	if (r->readonly)
		return tg_error_set(TG_ERR_UNAVAILABLE, "the home at %s is read-only and its "
				    "registry.db has no id yet (a command on a writable home "
				    "records one)", r->home);
	sqlite3_randomness(sizeof(rnd), rnd);
	for (i = 0; i < 16; i++)
		snprintf(r->db_id + 2 * i, 3, "%02x", rnd[i]);
	rc = reg_begin(r);
	if (rc < 0)
		return rc;
	free(id);
	id = NULL;
	rc = reg_meta_get_text(r, "db_id", &id);
	if (rc < 0)
		goto fail;
	if (rc > 0 && strlen(id) == 32) {
		memcpy(r->db_id, id, 33);
		reg_rollback(r);
		return 0;
	}
	rc = reg_meta_set_text(r, "db_id", r->db_id);
	if (rc < 0)
		goto fail;
	rc = reg_meta_set_int(r, "created_at", tg_time_now());
	if (rc < 0)
		goto fail;
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

/* SQLite's own busy handler sleeps 1, 2, 5, 10 ... 100 ms between tries:
 * a writer that finds the write lock taken for the 100 us of another's
 * commit (no fsync is made under it, commit.c) would lose a millisecond or
 * more. This one tries again after 50 us, backing off to 2 ms, for the
 * same REG_BUSY_TIMEOUT_MS in all. */
static int busy_wait(void *arg, int count)
{
	tg_registry *r = arg;
	unsigned us = count < 40 ? 50u * (unsigned)(count + 1) : 2000u;
	struct timespec ts = { 0, (long)us * 1000L };

	if (count == 0)
		r->busy_since = tg_now_ms();
	else if (tg_now_ms() - r->busy_since > REG_BUSY_TIMEOUT_MS)
		return 0;
	nanosleep(&ts, NULL);
	return 1;
}

/* "file:PATH?QUERY" with the characters a URI path cannot hold as they are
 * (%, ?, #) percent-encoded; NULL on OOM. */
static char *file_uri(const char *path, const char *query)
{
	size_t n = strlen(path), i, o = 5;
	char *u = malloc(5 + 3 * n + 1 + strlen(query) + 1);

	if (!u)
		return NULL;
	memcpy(u, "file:", 5);
	for (i = 0; i < n; i++) {
		if (path[i] == '%' || path[i] == '?' || path[i] == '#')
			o += (size_t)sprintf(u + o, "%%%02X", (unsigned char)path[i]);
		else
			u[o++] = path[i];
	}
	sprintf(u + o, "?%s", query);
	return u;
}

/* path + suffix (malloc'ed), NULL on OOM. */
static char *with_suffix(const char *path, const char *suffix)
{
	size_t n = strlen(path), m = strlen(suffix);
	char *p = malloc(n + m + 1);

	if (p) {
		memcpy(p, path, n);
		memcpy(p + n, suffix, m + 1);
	}
	return p;
}

/* Open registry.db read-only through uri and read its schema version. */
static int open_uri(tg_registry *r, const char *path, const char *query, int *version)
{
	_cleanup_free_ char *uri = file_uri(path, query);
	int rc;

	if (!uri)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = sqlite3_open_v2(uri, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
						  SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return reg_sqlerr(r, rc, "open read-only");
	sqlite3_extended_result_codes(r->db, 1);
	sqlite3_busy_handler(r->db, busy_wait, r);
	rc = reg_exec(r, "PRAGMA foreign_keys = ON; PRAGMA trusted_schema = OFF");
	if (rc < 0)
		return rc;
	return get_user_version(r, version);
}

/* registry.db of a home this process cannot write (r->readonly), opened
 * read-only as a file: URI. mode=ro first: it takes SQLite's read locks
 * and reads the WAL through the -shm that exists (mapped read-only). When
 * that cannot work (no -shm, and a folder that cannot hold a new one) and
 * there is no -wal, or an empty one, nothing a WAL could add is lost:
 * immutable=1 reads the database file alone, without locks. A database
 * this binary would have to migrate, or one without its id, is said so:
 * nothing is written. */
static int db_open_readonly(tg_registry *r)
{
	_cleanup_free_ char *wal = NULL, *shm = NULL;
	struct stat st;
	int rc, v = 0, wal_empty;

	if (stat(r->db_path, &st) != 0)
		return tg_error_set(TG_ERR_UNAVAILABLE, "the home at %s is read-only and has no "
				    "registry.db (a command on a writable home rebuilds it from "
				    "the store)", r->home);
	if (!(wal = with_suffix(r->db_path, "-wal")) || !(shm = with_suffix(r->db_path, "-shm")))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	wal_empty = stat(wal, &st) != 0 || st.st_size == 0;
	rc = open_uri(r, r->db_path, "mode=ro", &v);
	if (rc < 0 && wal_empty) {
		tg_error_clear();
		reg_stmt_cache_free(r); /* statements of the connection closed here */
		sqlite3_close_v2(r->db);
		r->db = NULL;
		rc = open_uri(r, r->db_path, "immutable=1", &v);
	}
	if (rc < 0 && !wal_empty && stat(shm, &st) != 0)
		return tg_error_set(TG_ERR_UNAVAILABLE, "the home at %s is read-only and "
				    "registry.db-wal holds changes that cannot be read without a "
				    "registry.db-shm, which the home cannot hold (a command on a "
				    "writable home checkpoints them)", r->home);
	if (rc < 0)
		return tg_error_prefix("registry.db (read-only)");
	if (v != REG_SCHEMA_VERSION)
		return tg_error_set(TG_ERR_UNAVAILABLE, "the home at %s is read-only and its "
				    "registry.db has schema version %d, this toolgate reads %d "
				    "(a command on a writable home migrates it)", r->home, v,
				    REG_SCHEMA_VERSION);
	return ensure_db_id(r);
}

int reg_db_open(tg_registry *r, int *created)
{
	int rc;

	*created = 0;
	r->wal_fd = -1;
	{
		/* whether the WAL's folder entry is someone else's to have made
		 * durable (commit.c, wal_sync) */
		_cleanup_free_ char *wal = NULL;
		struct stat st;
		if (asprintf(&wal, "%s-wal", r->db_path) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		r->wal_was_there = lstat(wal, &st) == 0 && S_ISREG(st.st_mode);
	}
	if (r->readonly)
		return db_open_readonly(r);
	rc = sqlite3_open_v2(r->db_path, &r->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return reg_sqlerr(r, rc, "open");
	sqlite3_extended_result_codes(r->db, 1);
	sqlite3_busy_handler(r->db, busy_wait, r);
	rc = reg_exec(r, "PRAGMA journal_mode = WAL");
	if (rc < 0)
		return rc;
	/* NORMAL: a commit does not fsync under the write lock; the commits
	 * that must be durable pass reg_sync_durable() after (commit.c) */
	rc = reg_exec(r, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; "
			 "PRAGMA trusted_schema = OFF");
	if (rc < 0)
		return rc;
	rc = migrate(r, created);
	if (rc < 0)
		return rc;
	return ensure_db_id(r);
}
