/*
 * registry/reg_internal.h: what the files of registry/ share and nobody
 * else sees: the tg_registry handle, the SQLite helpers (open, migrations,
 * BEGIN IMMEDIATE with retries, error mapping), the audit chain, the
 * re-index from the store, activation (the one place that moves a tool's
 * active pointer) and the build cache.
 */
#ifndef TG_REG_INTERNAL_H
#define TG_REG_INTERNAL_H

#include "registry.h"
#include "schema.h"
#include "analyzer/analyzer.h"
#include "sandbox/sandbox.h"
#include "store/store.h"

#include <sqlite3.h>

/* The schema version this binary writes (PRAGMA user_version). */
#define REG_SCHEMA_VERSION 7

/* Caps on what the agent controls. */
#define REG_MAX_SOURCE (256u * 1024u)
#define REG_MAX_TESTS 100
#define REG_MAX_DESCRIPTION 4096
#define REG_MAX_TEST_NAME 128
#define REG_MAX_ERROR_TEXT 4096
#define REG_MAX_ARGS (1u << 20)
/* A handle that committed nothing closes without checkpointing the WAL
 * while the WAL is at most this long (about 60 pages; registry.c). */
#define REG_WAL_KEEP_BYTES (256u * 1024u)
/* Wall-clock budget for all the tests of one submission together. */
#define REG_TEST_BUDGET_MS 120000u

typedef struct reg_schema_cache reg_schema_cache;
typedef struct reg_replay reg_replay;
typedef struct reg_stmt_cache reg_stmt_cache;

struct tg_registry {
	char *home;
	char *db_path;
	char *cache_dir;
	char *anchor_path;
	char *sdk_include;
	sqlite3 *db;
	char *store_path;
	tg_store *store;       /* opened on first use: always through reg_store() */
	int reindexed;         /* the re-index ran in this handle */
	tg_config cfg;
	tg_policy *policy;     /* loaded on first use */
	int in_txn;
	int durable_writes;    /* a transaction committed (fsynced): checkpoint on close */
	int in_call_intent;    /* committing a call's intent (the call profile's stamps) */
	int test_fail_sync;    /* tg_registry_test_fail_sync */
	/* audit head written in the current transaction, for the anchor */
	int64_t audit_seq_pending;
	char audit_hash_pending[65];
	char db_id[33];
	/* refs/active/<undo_tool> moved from undo_to (0: absent) to undo_from in
	 * the current transaction: a rollback of the transaction moves it back,
	 * so a command that fails after its activation changes no toolset */
	int undo_pending;
	char undo_tool[65];
	unsigned undo_from, undo_to;
	json_t *review_pending; /* [commit, line] review notes, written after COMMIT */
	json_t *repairs;       /* what the re-index on open fixed (for verify) */
	json_t *reindex_problems; /* tools it could not re-index (for verify) */
	const tg_call_hooks *hooks; /* the MCP session's, for bridged calls (or NULL) */
	reg_replay *replay;         /* the journal of the hooks' run (replay.c) or NULL */
	const tg_cancel *cancel;    /* the MCP request's cancellation (or NULL) */
	tg_commit_group *group; /* shared durability barrier (commit.c) or NULL */
	uint64_t busy_since;    /* db.c's busy handler: when this wait began */
	reg_schema_cache *schemas; /* parsed schemas per version (schema_cache.c) */
	reg_stmt_cache *stmts;  /* prepared statements for reuse (stmt_cache.c) */
};

/* ---- replay.c ----------------------------------------------------------- */
/* Drop the handle's replay journal (bridge.h has the rest). */
void reg_replay_free(tg_registry *r);

/* ---- registry.c ------------------------------------------------------- */
/* The store, opened (and created when missing) on first use: opening it
 * initialises libgit2, which costs milliseconds that an open whose store
 * fingerprint matched the one recorded in meta does not pay. */
int reg_store(tg_registry *r, tg_store **out);

/* ---- review_note.c ------------------------------------------------------ */
/* Queue "<what> by <actor> at <UTC time><detail>: capabilities [..], content
 * hash H" for the note of tool@v's commit (refs/notes/toolgate-review);
 * written after the transaction commits (at once outside one), best effort. */
int reg_review_note(tg_registry *r, const char *tool, unsigned v, const char *what,
		    const tg_actor *who, const char *detail);
/* After COMMIT: write the queued lines. After ROLLBACK: forget them. */
void reg_review_flush(tg_registry *r);
void reg_review_drop(tg_registry *r);
/* Every byte outside printable ASCII becomes '?' (notes, reflog messages). */
void reg_line_clean(char *s);
/* ---- schema_cache.c ---------------------------------------------------- */
/* The parsed input and output schema of version row vid (commit) whose
 * texts are itext and otext (NULL: none, json null): new references, parsed
 * only when this handle has not parsed these very texts for that key. */
int reg_schema_get(tg_registry *r, int64_t vid, const char *commit, const char *itext,
		   const char *otext, json_t **in, json_t **out);
void reg_schema_cache_free(reg_schema_cache *c);

/* An audit entry in its own transaction without the durability barrier:
 * it becomes durable with the next durable commit of any handle (the WAL
 * is written in order), which comes before anything is acknowledged to
 * the agent (registry.c; used for a run's bridge_call entries). */
int reg_audit_nosync(tg_registry *r, const tg_actor *who, const char *event, const char *tool,
		     const json_t *details);

/* ---- commit.c ---------------------------------------------------------- */
/* Make every commit made so far durable: one fdatasync of the WAL begun
 * after the caller's commit, shared with the group's other callers. */
int reg_sync_durable(tg_registry *r);

/* ---- db.c -------------------------------------------------------------- */
int reg_db_open(tg_registry *r, int *created);
int reg_sqlerr(tg_registry *r, int rc, const char *what);
/* How long a prepare, step or exec waits out SQLITE_BUSY in all. */
#define REG_BUSY_RETRY_MS 120000

/* ---- stmt_cache.c ------------------------------------------------------ */
/* The handle's statement for sql: its cached one (reset, no bindings) when
 * free, else compiled (and kept when there is room). Errors: reg_sqlerr's
 * "prepare". Release it with reg_finalizep (_cleanup_stmt_), never
 * sqlite3_finalize: a cached statement goes back to the cache, reset and
 * with its bindings cleared; *st becomes NULL. */
#define REG_STMT_CACHE_MAX 64
int reg_prepare(tg_registry *r, sqlite3_stmt **out, const char *sql);
void reg_finalizep(sqlite3_stmt **st);
/* reg_exec of a text holding exactly one statement, compiled once per
 * handle (BEGIN IMMEDIATE, COMMIT); errors as reg_exec's. */
int reg_exec_cached(tg_registry *r, const char *sql);
/* Statements the handle keeps (tests). */
size_t reg_stmt_cache_size(const tg_registry *r);
/* Finalize them all (before the connection closes). */
void reg_stmt_cache_free(tg_registry *r);
#define _cleanup_stmt_ TG_CLEANUP(reg_finalizep)
/* BEGIN IMMEDIATE, waiting out SQLITE_BUSY (never surfaces to the user). */
int reg_begin(tg_registry *r);
/* COMMIT (then write the audit anchor if this transaction appended to the
 * audit log); on failure the transaction is rolled back. */
int reg_commit(tg_registry *r);
void reg_rollback(tg_registry *r);
/* COMMIT of a call's log entries: durable and anchored like reg_commit,
 * but the handle still closes without a checkpoint (a call pays no WAL
 * checkpoint). */
int reg_commit_call(tg_registry *r);
/* A call's intent: deferred 0, as reg_commit_call (durable before the tool
 * runs); deferred 1, committed without the barrier, which its outcome's
 * commit passes for both (calllog.c, "Deferred intents"). */
int reg_commit_intent(tg_registry *r, int deferred);
/* After a barrier passed: advance the audit anchor, flush the review. */
void reg_commit_durable_done(tg_registry *r);
/* COMMIT without the durability barrier (the connection runs synchronous =
 * NORMAL): the anchor is not advanced (it would get ahead of what a power
 * loss keeps); the next durable commit that appends advances it past these
 * entries. */
int reg_commit_nosync(tg_registry *r);
/* sqlite3_step with SQLITE_BUSY retried; returns the sqlite rc. */
int reg_step(sqlite3_stmt *st);
int reg_exec(tg_registry *r, const char *sql);
/* Bind text that may be NULL. */
int reg_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Column text duplicated (NULL stays NULL). */
char *reg_col_strdup(sqlite3_stmt *st, int i);
/* A column holding JSON text, parsed (json null when NULL or bad). */
json_t *reg_col_json(sqlite3_stmt *st, int i);
/* meta table */
int reg_meta_get_int(tg_registry *r, const char *key, int64_t *out);
int reg_meta_set_int(tg_registry *r, const char *key, int64_t v);
int reg_meta_get_text(tg_registry *r, const char *key, char **out);
int reg_meta_set_text(tg_registry *r, const char *key, const char *v);
/* Bump the toolset generation (inside a transaction). */
int reg_bump_generation(tg_registry *r);
/* tools.id for name; create=1 inserts it. 0 and *out = 0 when absent. */
int reg_tool_id(tg_registry *r, const char *name, int create, int64_t *out);

/* ---- config.c ---------------------------------------------------------- */
int reg_config_load(tg_config *cfg, const char *home);
void reg_config_clear(tg_config *cfg);

/* ---- keys.c (signing key and trusted signers) ------------------------- */
char *reg_key_path(const tg_registry *r);
char *reg_trusted_signers_path(const tg_registry *r);
/* Sign the store's new commits when <home>/keys/signing_key exists. */
int reg_sign_setup(tg_registry *r, tg_store *s);
/* {"state": unsigned|good|untrusted|bad, "principal"?, "key"?, "why"?} of a
 * commit, against <home>/trusted_signers. */
int reg_signature_json(json_t **out, tg_registry *r, const char *commit);

/* ---- audit.c ----------------------------------------------------------- */
/* Append one entry (inside a transaction). */
int reg_audit_append(tg_registry *r, const tg_actor *who, const char *event,
		     const char *tool, const json_t *details);
/* After COMMIT: advance the anchor file to the head written (monotonic). */
int reg_audit_anchor_update(tg_registry *r);
/* Check the chain, the meta head and the anchor; append problems and notes. */
int reg_audit_verify(tg_registry *r, json_t *problems, json_t *notes);
/* A fresh database in a home whose anchor names another one: record it. */
int reg_audit_note_rebuild(tg_registry *r, const tg_actor *who);
/* hash_n of one entry (the chain's definition, audit.c). */
void reg_audit_entry_hash(char out[65], int64_t seq, int64_t at, const char *actor,
			  const char *event, const char *tool, const char *details,
			  const char *prev);
/* ---- archive.c --------------------------------------------------------- */
/* verify: the archived start of the chain. *expect_seq / prev: where the
 * table's chain must start (1 / zeros without an archive); problems and
 * notes for the archive files named by "archive" entries. */
int reg_archive_verify(tg_registry *r, int64_t *expect_seq, char prev[65], json_t *problems,
		       json_t *notes);
/* "cli", "mcp:SESSION" */
char *reg_actor_string(const tg_actor *who);

/* ---- calllog.c --------------------------------------------------------- */
/* The intent of a call whose tool is about to run: an unfinished calls row
 * and a "call" audit entry, committed durably, or with deferred (a tool
 * whose run has no effect outside its result) committed to the WAL only,
 * its outcome then being durable for both. On failure the tool must not
 * run (the error says so). */
int reg_call_intent(tg_registry *r, int64_t *out_id, int deferred, const char *name,
		    unsigned v, const tg_actor *who);
/* The outcome of call id: the row finished, a "call_result" entry; after
 * (or NULL): the caller's own entry for the call ({"version","ok"}) in the
 * same transaction. The commit is durable when after is set or durable is
 * (the call's intent was deferred). */
int reg_call_outcome(tg_registry *r, int64_t id, const char *name, unsigned v,
		     const json_t *res, const tg_actor *who, const char *after, int durable);
/* A call that never reached its tool: a finished row and "call_result"
 * (and after, as above). */
int reg_call_record(tg_registry *r, const char *name, unsigned v, const json_t *res,
		    const tg_actor *who, const char *after);
/* One note per unfinished call (for verify). */
int reg_calls_unfinished(tg_registry *r, json_t *notes);

/* registry.c: 0 when the SDK header is there (r->sdk_include set), else
 * TG_ERR_UNAVAILABLE (exit 3) naming where it was looked for: vetting and
 * building check it before anything is recorded. */
int reg_need_sdk(tg_registry *r);

/* ---- quota.c ----------------------------------------------------------- */
/* Allocated bytes (st_blocks) and files below path (0 when it is absent). */
int reg_dir_usage(const char *path, uint64_t *bytes, uint64_t *files);
int reg_home_usage(tg_registry *r, uint64_t *store, uint64_t *cache);
/* quota_home_mb and max_rejected_per_tool_hour: TG_ERR_DENIED naming the
 * quota when a create of name must be refused. */
int reg_quota_before_create(tg_registry *r, const char *name);
/* The host-wide build and run slots (slots.c): take one, waiting up to
 * wait_ms (*slot -1 when max_concurrent_builds / max_concurrent_runs is
 * 0); TG_ERR_DENIED naming the key when none frees in time. */
int reg_build_slot_take(tg_registry *r, uint32_t wait_ms, int *slot);
int reg_run_slot_take(tg_registry *r, uint32_t wait_ms, int *slot);
void reg_slot_give(int slot);
/* The create rate limits (quota.c): TG_ERR_DENIED naming the key. */
int reg_rate_before_create(tg_registry *r, const tg_actor *who);
/* max_binary_mb for a freshly built binary: TG_ERR_DENIED when over. */
int reg_quota_binary(tg_registry *r, const char *binary);
/* usage.c: the store bytes a create charges to its version (in the
 * create's transaction), the per-tool and per-session quotas
 * (TG_ERR_DENIED naming the key), and their largest use for status
 * ("tool_bytes", "session_bytes" members added to res). */
int reg_usage_record(tg_registry *r, int64_t tool_id, unsigned version, size_t source_len,
		     const json_t *manifest, const json_t *analysis);
int reg_usage_before_create(tg_registry *r, const char *name, const tg_actor *who);
int reg_usage_status(tg_registry *r, json_t *res);
/* overview.c: the keys `status` adds to the quota figures (tools, pending,
 * rejections_24h, calls_24h, session_defaults), merged into res. */
int reg_status_overview(tg_registry *r, json_t *res);

/* ---- cache.c ----------------------------------------------------------- */
void reg_rm_tree(const char *dir);
/* Move a cache folder out of the way in one rename (to cache/.stale-*),
 * then delete it; in place when it cannot be moved. */
void reg_cache_discard(tg_registry *r, const char *dir);
/* A work folder under cache/ (.build-S, .scratch-S) owned through the
 * flock on its lock file cache/.lock-S, made before it. */
typedef struct reg_workdir {
	char *dir;
	char *lock_path;
	int lock_fd;
} reg_workdir;
int reg_workdir_make(reg_workdir *w, tg_registry *r, const char *kind);
/* Remove the folder (remove_dir=1; 0 when it was renamed away), then its
 * lock file; frees w's strings. */
void reg_workdir_release(reg_workdir *w, int remove_dir);
/* At open: remove work folders whose owner died (their lock is free). */
void reg_sweep_workdirs(tg_registry *r);
/* A version that failed or was rejected keeps no binary: remove the cached
 * build of content_hash unless a passing version shares it. */
int reg_cache_drop_unused(tg_registry *r, const char *content_hash);
/* Evict builds until cache/ is at most budget bytes: inactive versions'
 * first, least recently used first. */
typedef struct reg_evict_stats {
	uint64_t bytes_before, bytes_after;
	size_t evicted, evicted_active;
} reg_evict_stats;
int reg_cache_evict(tg_registry *r, uint64_t budget, reg_evict_stats *out);

/* ---- upkeep.c ---------------------------------------------------------- */
/* After a create: pack the store when its loose objects (estimated) pass
 * pack_loose_objects. */
int reg_upkeep_after_create(tg_registry *r);

/* ---- manifest.c -------------------------------------------------------- */
int reg_caps_from_json(const json_t *caps, int *read, int *write);

/* ---- approval.c -------------------------------------------------------- */
/* The capability set of a manifest: its "capabilities" strings sorted,
 * without repeats (NULL on OOM). reg_caps_norm does the same for an array
 * (NULL also when it holds a non-string). */
json_t *reg_caps_of(const json_t *manifest);
json_t *reg_caps_norm(const json_t *caps);
/* sha256 over the canonical manifest (sorted keys, compact) and source. */
int reg_approval_hash(char out[65], const json_t *manifest, const char *source, size_t len);
/* What the store holds for one version, recomputed: approval hash, build
 * content hash, capability set (caller frees caps). */
typedef struct reg_facts {
	char approval_hash[65];
	char content_hash[65];
	json_t *caps;
} reg_facts;
int reg_version_facts(reg_facts *out, tg_registry *r, const char *tool, unsigned v);
/* Does the approval of version v stand? needs = it asks for capabilities;
 * stands = usable (needs none, or approved for its recomputed hash and
 * exact capability set, and not denied); why = the refusal otherwise. */
typedef struct reg_approval {
	int needs, stands, mismatch;
	char approval_hash[65];
	char why[512];
} reg_approval;
int reg_approval_check(reg_approval *out, tg_registry *r, int64_t tool_id, const char *tool,
		       unsigned v);

/* ---- pipeline.c -------------------------------------------------------- */
/* Vet, build and test a stored manifest + source here (a pulled version):
 * *out = {"status": rejected|failed|pending|inactive, "verdict", "reason",
 * "content_hash", "findings", "tests"}. Records nothing. skip_tests (NULL:
 * run them) = why the tests are not run (pull --trust-signed: "signed by
 * P"); the reason then says "passed; tests skipped: <skip_tests>" and tests
 * is []. */
int reg_revet(json_t **out, tg_registry *r, const json_t *manifest, const char *source,
	      size_t len, const char *skip_tests);

/* ---- remotes.c --------------------------------------------------------- */
/* The URL and pull caps of a remote (NULL: origin, else the only one). */
int reg_remote_resolve(char **name_out, char **url_out, tg_store_fetch_limits *lim,
		       tg_registry *r, const char *name);

/* ---- activate.c -------------------------------------------------------- */
/* Inside a transaction: make version v of tool the active one (CAS on
 * refs/active), mark the previous active inactive, record the event, bump
 * the generation. event: "activate", "rollback", "approve", "reindex".
 * Refused (TG_ERR_INVALID) unless the version's approval stands, except for
 * "reindex", which follows the store (calls then still refuse it). */
int reg_activate(tg_registry *r, int64_t tool_id, const char *tool, unsigned v,
		 const char *event, const tg_actor *who);
/* The active version per SQLite (0 = none). */
int reg_active_version(tg_registry *r, int64_t tool_id, unsigned *out);

/* ---- versions.c -------------------------------------------------------- */
/* One version row as written by create and by the re-index. */
typedef struct reg_version_rec {
	unsigned version;
	const char *status;
	const char *verdict;
	const char *reason;
	const char *commit;
	const char *content_hash;
	const char *submitter;
	int64_t time;
	const json_t *manifest;  /* tool.json */
	const json_t *analysis;  /* {"verdict","findings":[{..,"stage"}]} */
	const json_t *tests;     /* [{"name","passed","detail","wall_ms"}] */
} reg_version_rec;
/* Insert (inside a transaction); *out_inserted = 0 when that version was
 * already there (indexed meanwhile by another process). */
int reg_insert_version(tg_registry *r, int64_t tool_id, const reg_version_rec *v,
		       int *out_inserted);
/* Status of one version ("" when absent, caller frees). */
int reg_version_status(tg_registry *r, int64_t tool_id, unsigned v, char **out);
/* A version as JSON for show/history (full=1 adds manifest parts, findings
 * and tests). */
int reg_version_json(json_t **out, tg_registry *r, int64_t tool_id, const char *tool,
		     unsigned v, int full);
/* tools.id of an existing tool; TG_ERR_NOTFOUND / TG_ERR_INVALID else. */
int reg_need_tool(tg_registry *r, const char *name, int64_t *id);
/* Highest version number SQLite holds for the tool (0 = none). */
int reg_max_version(tg_registry *r, int64_t tool_id, unsigned *out);

/* ---- reindex.c --------------------------------------------------------- */
int reg_reindex(tg_registry *r, int full);
/* This host's own verdict on a commit it pulled (the local note written by
 * pull.c; *out NULL when there is none: a version created here). */
int reg_local_verdict(json_t **out, tg_registry *r, const char *commit);
/* Insert one store version into SQLite (inside a transaction). */
int reg_index_store_version(tg_registry *r, const char *tool, const tg_store_version *sv,
			    unsigned active);

/* ---- build.c ----------------------------------------------------------- */
int reg_policy(tg_registry *r, const tg_policy **out);
/* Build source into the cache (cache/<hash>/tool), checking the object
 * file; *out_ok = 0 with *out_report / *out_log telling why when it does not
 * build or the object check fails. */
int reg_build(tg_registry *r, const char *hash, const char *source, size_t len,
	      const char *const *caps, size_t ncaps, int *out_ok,
	      tg_report **out_report, char **out_log, char **out_binary);
/* Append one formatted line (at most 1023 bytes) to a JSON array of
 * strings: verify's problems and notes (audit.c). */
void reg_add_line(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A source's text rules (manifest.c): 1..REG_MAX_SOURCE bytes of UTF-8, no
 * NUL, no control characters but tab, newline, CR LF and form feeds, no
 * bidirectional controls. */
int reg_check_source(const char *source, size_t source_len);
/* The content hash of a source (hex). */
void reg_content_hash(char out[65], const char *source, size_t len);
/* The cache key of a content hash: sha256 of it and the build inputs'
 * fingerprint (tg_sandbox_build_inputs). */
int reg_cache_key(char out[65], const char *content_hash, tg_registry *r);
/* The cached binary of content_hash when cache/<key>/tool still hashes to
 * what was recorded when it was built here; *out = NULL (rc 0) otherwise. */
int reg_cached_binary(char **out, tg_registry *r, const char *content_hash);
/* The hashes recorded for cache/<key> (1), or 0 when there is no record. */
int reg_cache_record(tg_registry *r, const char *key, char bin[65], char obj[65]);
/* sha256 (hex) of a file's bytes. */
int reg_file_sha256(char out[65], const char *path);
/* Run a built tool once: the call contract. *out = {"ok",..,"result"|"error",
 * "wall_ms","reason"}. With ws_read or ws_write, workspace (the configured
 * host folder, or a pending version's empty scratch folder; NULL: none) is
 * bound at /workspace. */
/* The limits a run of a version with these manifest limits gets: its own
 * where within config.json's ceilings, else the defaults (build.c);
 * {"timeout_ms","memory_mb","output_kb"}. */
json_t *reg_limits_applied(const tg_registry *r, const json_t *limits);
int reg_run_tool(json_t **out, tg_registry *r, const char *binary, const json_t *limits,
		 int ws_read, int ws_write, const char *workspace, const json_t *args);
/* The empty folder for the tests of a version that awaits approval is a
 * work folder of kind "scratch" (cache.c): they see it at /workspace, never
 * the host's; swept at the next open when a crash leaves one behind. */

#endif
