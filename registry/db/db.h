/*
 * registry/db/db.h: the SQLite floor of registry/: the tg_registry handle,
 * opening and migrating registry.db (open.c), statements and their cache
 * (db.c, stmt_cache.c), the meta table (meta.c), transactions with their
 * hooks (txn.c) and the shared durability barrier (commit.c). Calls go
 * down only: what must happen above at a commit or a rollback is a hook
 * (reg_txn_hooks).
 */
#ifndef TG_REG_DB_H
#define TG_REG_DB_H

#include "registry/registry.h"
#include "registry/config/config.h"
#include "registry/schema/schema.h"
#include "analyzer/analyzer.h"
#include "sandbox/sandbox.h"
#include "store/store.h"

#include <sqlite3.h>
#include <sys/types.h>

/* What the layers above db/ do at the edges of a transaction (txn.c calls
 * them; registry.c registers them at open, as SQLite's commit and rollback
 * hooks are registered): forget queued review notes at BEGIN, write them
 * after COMMIT, advance the audit anchor after a durable COMMIT, move an
 * activation back after ROLLBACK. A NULL member is skipped. */
/* The call layer's entry (call/call.c reg_call_ex), handed down to the
 * bridge (exec/bridge.c), which runs a bridged callee through it: set by
 * registry.c at open. */
struct reg_bridge;
typedef int (*reg_call_fn)(json_t **out, tg_registry *r, const char *name, const json_t *args,
			   const tg_actor *who, const struct reg_bridge *parent, const char *after);

typedef struct reg_txn_hooks {
	void (*begun)(tg_registry *r);
	void (*committed)(tg_registry *r, int durable);
	void (*rolled_back)(tg_registry *r);
} reg_txn_hooks;

/* The schema version this binary writes (PRAGMA user_version). */
#define REG_SCHEMA_VERSION 11

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
typedef struct reg_mirror reg_mirror;

struct tg_registry {
	char *home;
	char *db_path;
	char *cache_dir;
	char *anchor_path;
	int anchor_fd;         /* audit.anchor held open (record/audit_guard.c), or -1 */
	int anchor_rw;         /* ... opened for writing */
	pid_t anchor_pid;      /* ... by this process (a fork opens its own) */
	dev_t anchor_dev;      /* ... and the file it is */
	ino_t anchor_ino;
	char *sdk_include;
	sqlite3 *db;
	char *store_path;
	tg_store *store;       /* opened on first use: always through reg_store() */
	int reindexed;         /* the re-index ran in this handle */
	int readonly;          /* the home is read-only: registry.db opened read-only,
				  the store too, nothing swept, re-indexed or migrated
				  (registry.c decides it at open) */
	int behind;            /* read-only: tools whose registry rows lag the store
				  (replica/reindex.c counts them, nothing repaired) */
	tg_config cfg;
	tg_policy *policy;     /* loaded on first use */
	int in_txn;
	int durable_writes;    /* a transaction committed (fsynced): checkpoint on close */
	int wal_fd;            /* the WAL, opened at the first barrier (commit.c), or -1 */
	int wal_was_there;     /* it existed before this handle opened the database */
	int in_call_intent;    /* committing a call's intent (the call profile's stamps) */
	const json_t *sample_args; /* a real top-level call to sample with its outcome
				      (call.c sets it, calllog.c records it: samples.c) */
	const json_t *sample_journal; /* its direct bridged calls' replies (or NULL) */
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
	int following;         /* applying a decision followed from a remote (not signed again) */
	json_t *repairs;       /* what the re-index on open fixed (for verify) */
	json_t *reindex_problems; /* tools it could not re-index (for verify) */
	const tg_call_hooks *hooks; /* the MCP session's, for bridged calls (or NULL) */
	tg_authority authority; /* what runs now runs as (authz.c): real, test, re-test */
	uint32_t retest_attempts; /* bridged attempts of the current pull's re-tests */
	reg_replay *replay;         /* the journal of the hooks' run (replay.c) or NULL */
	const tg_cancel *cancel;    /* the MCP request's cancellation (or NULL) */
	tg_commit_group *group; /* shared durability barrier (commit.c) or NULL */
	uint64_t busy_since;    /* db.c's busy handler: when this wait began */
	reg_schema_cache *schemas; /* parsed schemas per version (schema_cache.c) */
	reg_stmt_cache *stmts;  /* prepared statements for reuse (stmt_cache.c) */
	const reg_txn_hooks *txn_hooks; /* registry.c's, called by txn.c */
	reg_call_fn call_tool;  /* registry.c's: reg_call_ex, for the bridge */
	reg_mirror *mirror;     /* audit entries for the journal (record/audit_mirror.c) */
};


/* ---- commit.c ---------------------------------------------------------- */
/* Make every commit made so far durable: one fdatasync of the WAL begun
 * after the caller's commit, shared with the group's other callers. */
int reg_sync_durable(tg_registry *r);

/* ---- db.c, open.c, meta.c, txn.c --------------------------------------- */
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
/* This process's id, read once per process (a fork's child reads its own). */
pid_t reg_self_pid(void);
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
/* 1 when registry.db has table name, 0 when not: the tables made when
 * first needed (CREATE IF NOT EXISTS, which a read-only handle cannot run)
 * are looked for by the readers first; a missing one holds nothing. */
int reg_table_exists(tg_registry *r, const char *name);
/* Bump the toolset generation (inside a transaction). */
int reg_bump_generation(tg_registry *r);
/* tools.id for name; create=1 inserts it. 0 and *out = 0 when absent. */
int reg_tool_id(tg_registry *r, const char *name, int create, int64_t *out);

/* event.c: an event of the operation in progress to the session's hooks
 * (tg_call_hooks.event, tg_op_event); nothing is formatted when no hook
 * takes events. reg_event_lines makes one event per line of text (a
 * tool's stderr, a build log), at most max lines (the rest summarised). */
int reg_events_on(const tg_registry *r);
void reg_event(tg_registry *r, const char *level, const char *logger, unsigned step,
	       unsigned total, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void reg_event_lines(tg_registry *r, const char *level, const char *logger, const char *text,
		     size_t len, unsigned max);

#endif
