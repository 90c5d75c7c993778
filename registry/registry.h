/*
 * registry/registry.h: the public interface of the toolset.
 *
 * The registry composes analyzer, store and sandbox into the create_tool
 * pipeline of docs/CONTRACTS.md and keeps the agent's toolset in SQLite
 * (<home>/registry.db): versions and their status, findings, test results,
 * approvals, calls, and a hash-chained audit log. Results come back as JSON
 * documents (the shapes are documented in docs/REGISTRY.md) so that the CLI
 * and the MCP server print the same facts.
 *
 * Only registry/ includes sqlite3.h.
 */
#ifndef TG_REGISTRY_H
#define TG_REGISTRY_H

#include "common/common.h"

typedef struct tg_registry tg_registry;

/* The home's config.json (all optional; defaults in docs/CONFIG.md). */
typedef struct tg_config {
	uint32_t max_timeout_ms;     /* ceiling for a manifest's limits.timeout_ms */
	uint32_t max_memory_mb;      /* ceiling for limits.memory_mb */
	uint32_t max_output_kb;
	char *workspace;             /* host folder for workspace:* capabilities */
	char *signing_key;           /* an existing ed25519 key signing every commit
					(absolute path), else <home>/keys/signing_key */
	/* MCP session governance (toolgate serve) */
	uint32_t session_max_calls;  /* 0 = unlimited */
	uint32_t session_max_creates;
	int session_hide_write_tools; /* keep workspace:write tools out of a session
					 until approved */
	int require_cgroups;         /* refuse to run tools with rlimits only */
	int sandbox_backend;         /* tg_sandbox_backend of tool runs (calls and
				      * tests; builds stay native): 0 native */
	/* the tool bridge (docs/BRIDGE.md) */
	uint32_t max_tool_calls;     /* ceiling for limits.max_tool_calls (64) */
	uint32_t max_call_depth;     /* nested bridged calls (2) */
	uint32_t pull_test_max_tool_calls; /* bridged calls of one pull's re-tests (64) */
	json_t *host_tools;          /* validated "host_tools" (bridge_host.c) */
	uint32_t call_approval_timeout_ms; /* a queued call's wait (120000) */
	uint32_t sandbox_pool;       /* sandboxes made ahead by serve (0: off; 0-8) */
	/* serve --http (docs/MCP.md, "Hostile load") */
	uint32_t http_header_timeout_ms;      /* request line and headers (2000) */
	uint32_t http_unauth_connections_per_ip; /* unauthenticated, per address (16; 0 = none) */
	uint32_t http_auth_reserve_percent;   /* slots unauthenticated ones may not take (25) */
	uint32_t http_body_budget_mb;         /* request body bytes in flight, all (8) */
	/* quotas and upkeep (docs/CONFIG.md; 0 = unlimited / never) */
	uint32_t quota_home_mb;      /* store + cache of the home (1024) */
	uint32_t max_binary_mb;      /* one built binary (16) */
	uint32_t max_rejected_per_tool_hour; /* rejected or failed versions (20) */
	uint32_t cache_budget_mb;    /* cache/ before inactive builds are evicted (256) */
	uint32_t pack_loose_objects; /* pack the store past this many loose objects (1000) */
	uint32_t analyze_timeout_ms; /* the analyzer's wall-clock budget (5000) */
	uint32_t property_tests;     /* inputs generated per create (64; 0 = off) */
	uint32_t property_test_budget_ms; /* their wall-clock budget (3000) */
	int schema_assert_format;    /* `format` asserted in tool schemas (false:
				      * an annotation; config.c reg_schema_flags) */
	/* safe defaults on a shared host (issue 15; 0 = unlimited) */
	uint32_t session_max_creates_per_minute; /* creates of one MCP session (10) */
	uint32_t home_max_creates_per_minute;    /* creates in the home, all actors (30) */
	uint32_t max_concurrent_builds; /* builds at once on the host, all homes (2) */
	uint32_t max_concurrent_runs;   /* tool runs at once on the host (2 x cores) */
	uint32_t cpu_percent;        /* CPU share of one build or run sandbox (100) */
	uint32_t quota_session_mb;   /* store + cache bytes charged to one session (256) */
	uint32_t quota_tool_mb;      /* store + cache bytes charged to one tool (128) */
	/* recorded calls and shadow runs (config/record_config.c) */
	uint32_t record_calls;       /* samples kept per tool (64; 0: none recorded) */
	uint32_t record_tool_kb;     /* their bytes per tool (2048 KiB) */
	uint32_t record_home_mb;     /* their bytes per home (64 MiB) */
	int record_workspace_calls;  /* record tools holding workspace:* (false) */
	uint32_t shadow_samples;     /* samples a candidate is run on (32; 0: none) */
	int promotion;               /* TG_PROMOTION_* (shadow) */
	/* the audit log's copy in the host's journal or syslog (record/audit_mirror.c) */
	int audit_mirror;            /* TG_AUDIT_MIRROR_* (off) */
	char *audit_mirror_socket;   /* datagram socket instead of the host's (tests), or NULL */
} tg_config;

/* config.json "audit_mirror": where every audit entry is copied to */
enum { TG_AUDIT_MIRROR_OFF = 0, TG_AUDIT_MIRROR_JOURNAL, TG_AUDIT_MIRROR_SYSLOG,
       TG_AUDIT_MIRROR_AUTO };
/* The form cfg's audit mirror sends in (TG_AUDIT_MIRROR_JOURNAL or _SYSLOG;
 * "auto" resolved by looking for journald's socket now) and *path the
 * socket it sends to; TG_AUDIT_MIRROR_OFF and NULL when off
 * (registry/record/audit_mirror.c). */
int tg_audit_mirror_target(const tg_config *cfg, const char **path);

/* config.json "promotion": what keeps a new version out of the active slot */
enum { TG_PROMOTION_TESTS = 0, TG_PROMOTION_SHADOW, TG_PROMOTION_STRICT };

/* Open the home (create=1: create it if missing): store.git, registry.db,
 * cache/. Re-indexes from the store whatever the database lacks, unless the
 * store's fingerprint shows it unchanged since the last re-index (then the
 * store is opened only when first needed). */
int tg_registry_open(tg_registry **out, const char *home, int create);
/* Or'ed into create: open for tg_registry_verify only. No fingerprint and no
 * re-index here (verify re-indexes in full itself), unless registry.db is
 * new. */
#define TG_REGISTRY_OPEN_VERIFY 2
/* Or'ed into create by a command that only reads (list, show, verify, ...).
 * On a home this process cannot write (a read-only mount, EROFS; a home
 * of another user, EACCES) the open is then read-only through and through:
 * registry.db read-only, no sweep, no migration, no re-index (a registry
 * behind the store, or one that needs a migration, is an error saying so).
 * On a writable home the open repairs as usual and the handle is then made
 * query-only (PRAGMA query_only): the command itself cannot write. Without
 * this flag an open of a home it cannot write fails at once: "the home at
 * PATH is read-only (EROFS)" (TG_ERR_UNAVAILABLE). */
#define TG_REGISTRY_OPEN_READONLY 4
void tg_registry_free(tg_registry *r);
/* tg_registry_open on the home resolved from a --home flag (NULL: the
 * environment, see tg_home_resolve). */
int tg_registry_open_flag(tg_registry **out, const char *home_flag, int create);
/* A copy of s safe to print on a terminal: tg_term_scrub(TG_TERM_BLOCK),
 * control, C1 and bidirectional characters as visible markers, newline and
 * tab kept. NULL on OOM. */
char *tg_registry_scrub(const char *s);
/* Parse "NAME" or "NAME@V" (V a positive decimal); *version = 0 without @. */
int tg_registry_parse_ref(char **out_name, unsigned *version, const char *ref);
const tg_config *tg_registry_config(const tg_registry *r);

/* Who is acting, for the audit log. */
typedef struct tg_actor {
	const char *kind;      /* "cli" or "mcp" */
	const char *session;   /* session id, or NULL */
} tg_actor;

/* One submission. manifest follows docs/CONTRACTS.md; its "source" member is ignored
 * and source/source_len is the code itself. */
typedef struct tg_submission {
	const json_t *manifest;
	const char *source;
	size_t source_len;
} tg_submission;

/* A test's "files" (tests of a workspace tool, docs/CONTRACTS.md): at most
 * this many files on its scratch /workspace, at most this many KiB of text
 * in all (manifest.c checks them; create_tool's schema publishes them). */
#define TG_TEST_MAX_FILES 16
#define TG_TEST_FILES_KB 64

/* Validate only: 0 or TG_ERR_INVALID/TG_ERR_LIMIT with a precise message:
 * every independent part is checked, and several problems come as one
 * message, "N problems in the manifest: A; B; ..." (manifest.c). */
int tg_manifest_validate(const tg_registry *r, const json_t *manifest,
			 const char *source, size_t source_len);

/* Read a manifest from disk for the CLI: path is a manifest file or a folder
 * holding tool.json; its "source" is a relative path (no "..", no absolute
 * path, not escaping the folder through symlinks) read with a 256 KiB cap.
 * TG_ERR_INVALID / TG_ERR_LIMIT with a precise message. */
int tg_manifest_load(json_t **out, char **out_source, size_t *out_len, const char *path);

/* The whole pipeline. A bad manifest is TG_ERR_INVALID and changes nothing;
 * otherwise 0 with *out = {"name","version","status","verdict","commit",
 * "findings":[..],"tests":[..],"reason"} whatever the verdict. */
int tg_registry_create(json_t **out, tg_registry *r, const tg_submission *sub,
		       const tg_actor *who);

/* Run the active version of a tool. 0 with *out = {"name","version","ok":bool,
 * "result":<json>|"error":"..","wall_ms"}; a schema or tool failure is
 * ok=false, not an error code. TG_ERR_NOTFOUND when no such active tool. */
int tg_registry_call(json_t **out, tg_registry *r, const char *name,
		     const json_t *args, const tg_actor *who);
/* tg_registry_call that also appends the caller's own audit entry `event`
 * for the call ({"version","ok"}, e.g. MCP's "mcp_call") in the outcome's
 * transaction, which is then durable before *out is handed back: the call
 * costs one transaction and one (group) fsync less than a separate
 * tg_registry_audit. Not appended when the call returns an error code. */
int tg_registry_call_logged(json_t **out, tg_registry *r, const char *name,
			    const json_t *args, const tg_actor *who, const char *event);

/* Group commit (registry/commit.c): handles that share a group share the
 * fsync that makes their commits durable; the calls that committed
 * together pay one. The group lives in MAP_SHARED memory, so handles in
 * processes forked after tg_commit_group_new() may share it; all of them
 * must keep registry.db of one home open while they use it. */
typedef struct tg_commit_group tg_commit_group;
int tg_commit_group_new(tg_commit_group **out);
void tg_commit_group_free(tg_commit_group *g);
void tg_registry_set_commit_group(tg_registry *r, tg_commit_group *g);
/* fsyncs run for the group, and the commits that needed one */
void tg_commit_group_stats(const tg_commit_group *g, uint64_t *syncs, uint64_t *barriers);
/* For tests, in a child process: begin a sync as the group's leader and
 * _exit() in the middle of it, as a leader killed in its fdatasync (the
 * next caller must take over). Does not return. */
void tg_commit_group_test_die_syncing(tg_commit_group *g);
/* Tests: the next n durability barriers of this handle fail (as a failed
 * fdatasync would), after their commit reached the WAL. */
void tg_registry_test_fail_sync(tg_registry *r, int n);
/* The handle's parsed-schema cache (registry/schema_cache.c): lookups that
 * found the version's parsed schemas, and those that parsed them. */
void tg_registry_schema_cache_stats(const tg_registry *r, uint64_t *hits, uint64_t *misses);

/* Active tools: [{"name","version","description","input_schema",
 * "capabilities":[..]}], sorted by name. */
int tg_registry_list(json_t **out, tg_registry *r);
/* One version (version 0 = the active one, else the newest). */
int tg_registry_show(json_t **out, tg_registry *r, const char *name, unsigned version);
/* Every version with status, time, verdict, commit, plus activation events. */
int tg_registry_history(json_t **out, tg_registry *r, const char *name);
/* The recorded calls of a tool (docs/REGISTRY.md, "A new version earns its
 * place"): {"name","samples":[{"id","version","args","ok","result"|"error",
 * "reason","wall_ms","at","journal"?}],"max_calls","max_tool_kb",
 * "recording"}. */
int tg_registry_samples(json_t **out, tg_registry *r, const char *name);
/* The sandbox backend of tool NAME's runs (record/backend.c):
 * {"name","backend":"native"|"gvisor","source":"home"|"tool"|"exception",
 * "home"}. Set: an operator action, audited "backend" (the same object plus
 * "was","was_source"): gvisor puts the tool under gVisor whatever the home
 * says; native follows the home, or with TG_BACKEND_WEAKEN runs the tool
 * natively even under a gVisor home (refused without it, TG_ERR_INVALID). */
#define TG_BACKEND_WEAKEN 1u
int tg_registry_backend_show(json_t **out, tg_registry *r, const char *name);
/* Active tools by the backend their calls get: {"home","gvisor","native",
 * "gvisor_by_tool","native_exceptions"} (status's "backends"; doctor). */
int tg_registry_backends(json_t **out, tg_registry *r);
int tg_registry_backend_set(json_t **out, tg_registry *r, const char *name, int backend,
			    unsigned flags, const tg_actor *who);
/* Delete the samples of NAME (NULL: every tool), audited "samples_purged";
 * *out = {"deleted","all_tools"}. */
int tg_registry_samples_purge(json_t **out, tg_registry *r, const char *name,
			      const tg_actor *who);
/* Tests from recorded calls (docs/REGISTRY.md, "Regression tests from real
 * calls"): add recorded call #sample of NAME as a test that every later
 * create of NAME runs (*out = {"name","test"}; audited "test_added"), list
 * them ({"name","tests":[{"name","test","sample","actor","at"}]}), remove
 * one by its test name (*out = {"name","removed"}; audited
 * "test_removed"). */
int tg_registry_tests_add(json_t **out, tg_registry *r, const char *name, int64_t sample,
			  const tg_actor *who);
int tg_registry_tests_list(json_t **out, tg_registry *r, const char *name);
int tg_registry_tests_remove(json_t **out, tg_registry *r, const char *name, const char *test,
			     const tg_actor *who);
/* Activate a version that shadow runs held (status "held"), a person's
 * decision: its approval must stand (reg_activate). *out = {"name",
 * "version","from_version"}; audited "promote". */
int tg_registry_promote(json_t **out, tg_registry *r, const char *name, unsigned v,
			const tg_actor *who);
int tg_registry_diff(char **out, tg_registry *r, const char *name, unsigned v1, unsigned v2);
/* The shadow report of NAME vB against vA (`diff --behaviour`): *out =
 * {"name","from","to","status","report"}; TG_ERR_NOTFOUND when vB has no
 * report or was run against another version (the message names it). */
int tg_registry_behaviour(json_t **out, tg_registry *r, const char *name, unsigned a,
			  unsigned b);
/* to = 0: the version active before the current one. Only a version that
 * passed, is not denied and whose approval stands (it asks for no
 * capability, or a person approved that exact version) can be activated.
 * TG_ROLLBACK_HIDE_WRITE: the caller may not see versions asking for
 * workspace:write (an MCP session with hide_write_tools): they are skipped
 * as default targets and are "no version N visible" when named. */
#define TG_ROLLBACK_HIDE_WRITE 1u
int tg_registry_rollback(json_t **out, tg_registry *r, const char *name, unsigned to,
			 unsigned flags, const tg_actor *who);
/* A person approves one version: its approval hash (recomputed from the
 * stored tool.json and tool.c) and exact capability set. It becomes active
 * unless a newer version is active: then it stays inactive (approved, ready
 * for rollback) unless TG_APPROVE_ACTIVATE. *out = {"name","version",
 * "from_version","status","capabilities","approval_hash","activated",
 * "active_version"}. */
#define TG_APPROVE_ACTIVATE 1u
int tg_registry_approve(json_t **out, tg_registry *r, const char *name, unsigned version,
			unsigned flags, const tg_actor *who);
/* A person refuses a version for good (status "denied", audited): it can
 * never be approved, activated or rolled back to. The active version
 * cannot be denied (roll back first). reason may be NULL. */
int tg_registry_deny(json_t **out, tg_registry *r, const char *name, unsigned version,
		     const char *reason, const tg_actor *who);
/* Disable a tool: no version stays active (refs/active/<name> deleted,
 * reflog kept), every version and its history kept, a "remove" event and
 * audit entry. rollback --to V (or approving a pending version)
 * re-activates later.
 * *out = {"name","from_version","active_version":null}. TG_ERR_NOTFOUND
 * for an unknown tool or one with no active version. */
int tg_registry_remove(json_t **out, tg_registry *r, const char *name, const tg_actor *who);
/* Versions waiting for a person: [{"name","version","status",
 * "capabilities","submitter","time","reason","content_hash",
 * "active_version"}], by name and version. */
int tg_registry_pending(json_t **out, tg_registry *r);
/* Audit log entries, oldest first (limit 0 = all). */
int tg_registry_log(json_t **out, tg_registry *r, size_t limit);
/* Store, registry and audit chain agree, and registry.db passes SQLite's
 * integrity check: *out = {"ok":bool,"problems":[..],"notes":[..]}. */
int tg_registry_verify(json_t **out, tg_registry *r);
/* The words that end the message of any error caused by a damaged
 * registry.db (SQLite's "malformed" or "not a database"): `verify` reports
 * such an error as a problem (exit 1), not as an environment failure. */
#define REG_DAMAGED "registry.db is damaged: run toolgate verify"
/* Use against each quota and upkeep figure (docs/CONFIG.md, "Quotas"):
 * {"home":{"used_bytes","store_bytes","cache_bytes","quota_bytes"},
 *  "binary":{"largest_bytes","limit_bytes"},
 *  "rejected_per_tool_hour":{"highest","tool","limit"},
 *  "cache":{"bytes","builds","budget_bytes"},
 *  "store":{"loose_objects","packs","pack_threshold"},
 *  "rebuild_unacknowledged":bool,
 *  "cpu":{"percent","enforced":bool,"how"},
 *  "concurrency":{"max_concurrent_runs","max_concurrent_builds"},
 *  "tool_bytes":{"tool","used_bytes","quota_bytes"} (the tool charged most),
 *  "session_bytes":{"session","used_bytes","quota_bytes"} (the MCP session
 *  charged most; session null when none),
 *  "tools":{"total","active"}, "pending":{"count","first":[..]},
 *  "rejections_24h":{"count","recent":[..]} (first/recent: up to 5
 *  {"name","version","status","reason","time"}), "calls_24h":{"count"},
 *  "session_defaults":{"max_calls","max_creates","hide_write_tools"}};
 *  a limit of 0 means unlimited. */
int tg_registry_status(json_t **out, tg_registry *r);
/* The figures of `serve --http`'s /metrics (registry/create/metrics.c):
 * {"calls":[{"tool","outcome","count"}], "call_failures":[{"reason","count"}],
 *  "sandbox_kills":[{"reason","count"}], "creates":[{"outcome","count"}],
 *  "calls_queued", "audit_entries" (counts of the audit log's entries),
 *  "latency":{"le_ms":[..],"counts":[cumulative..],"count","sum_ms"} (the
 *  finished calls' wall_ms), "run_slots"/"build_slots":{"busy","max"},
 *  "status": tg_registry_status's object}. */
int tg_registry_metrics(json_t **out, tg_registry *r);
/* Upkeep on demand (`toolgate gc`): pack the store's loose objects and old
 * packs into one pack (history untouched) and bring cache/ under
 * cache_budget_mb (inactive versions' binaries first), audited as "gc".
 * *out = {"store":{"busy","loose_before","packs_before","loose_after",
 * "packs_after","objects_packed","loose_removed","pack"},
 * "cache":{"bytes_before","bytes_after","evicted","evicted_active",
 * "budget_bytes"}}. */
int tg_registry_gc(json_t **out, tg_registry *r, const tg_actor *who);
/* Audit retention: move the oldest entries, up to the last one before
 * BEFORE (an entry number, or a UTC date YYYY-MM-DD), to
 * <home>/audit-archive/audit-F-L.jsonl (verifiable on its own) and append
 * a checkpoint entry "archive" that keeps the chain whole. *out =
 * {"from","through","entries","file","sha256","checkpoint"}.
 * TG_ERR_NOTFOUND when nothing is that old, TG_ERR_INVALID for a bad
 * BEFORE. */
int tg_registry_archive(json_t **out, tg_registry *r, const char *before, const tg_actor *who);
/* A person acknowledges that registry.db was rebuilt from the store and its
 * audit and call history lost (verify reports the rebuild as a problem until
 * then): a "rebuild_acknowledged" audit entry. *out = {"rebuilt_at"}.
 * TG_ERR_NOTFOUND when it was never rebuilt, TG_ERR_EXISTS when this rebuild
 * is acknowledged already. */
int tg_registry_acknowledge_rebuild(json_t **out, tg_registry *r, const tg_actor *who);
/* Append an audit event (e.g. an MCP budget denial). details may be NULL. */
int tg_registry_audit(tg_registry *r, const tg_actor *who, const char *event,
		      const char *tool, const json_t *details);

/* A one-off program (`toolgate run`, docs/BRIDGE.md): vetted, built and
 * run once with the bridge, never registered. calls: array of tool names
 * and host:NAME or NULL; limits: timeout_ms, memory_mb, output_kb,
 * max_tool_calls or NULL. Its source and analysis report are kept
 * (content-addressed) with a runs row. *out = {"run","program_sha256",
 * "report_sha256","status":"ok"|"error"|"rejected"|"failed","findings",
 * "ok","result"|"error","reason","wall_ms","tool_calls"}. A bad request is
 * TG_ERR_INVALID / TG_ERR_LIMIT and records nothing. */
typedef struct tg_program {
	const char *source;
	size_t source_len;
	const json_t *args;
	const json_t *calls;
	const json_t *limits;
} tg_program;
int tg_registry_run_program(json_t **out, tg_registry *r, const tg_program *p,
			    const tg_actor *who);
/* One run: its row, source, report and the audit entries of its bridged
 * calls (also those of its callees), oldest first. TG_ERR_NOTFOUND. */
int tg_registry_show_run(json_t **out, tg_registry *r, int64_t id);
/* Calls waiting for a person: [{"id","tool","callee_version","args",
 * "caller","binding","run","queued_at"}]. */
int tg_registry_call_approvals(json_t **out, tg_registry *r);
/* Approve (approve=1) or deny one pending call. TG_ERR_NOTFOUND when no
 * such call, TG_ERR_CONFLICT when it is no longer pending. */
int tg_registry_decide_call(json_t **out, tg_registry *r, int64_t id, int approve,
			    const tg_actor *who);

/* Hooks of the caller (the MCP session) into the bridged calls of the next
 * tg_registry_call / tg_registry_run_program on this handle, at any depth
 * (docs/BRIDGE.md, docs/MCP.md). attempt: before each bridged call
 * attempt, whatever its outcome; 1 lets it go on, 0 refuses it with the
 * message put in why (the session's call budget). ask: a call needs a
 * person; the row q->id is already queued (pending) and bound; return 1
 * approve, 0 deny with *why "declined", "cancelled" or "timeout" (a static
 * string), or TG_ERR_UNAVAILABLE to wait on the queue as without hooks.
 * The 2026-07-28 era of MCP adds *why "input_required" (deny: the client
 * was handed the question) and "request_state_declined", and approves
 * with *why "request_state"; the decision's audit entry names it ("via"). */
typedef struct tg_call_question {
	int64_t id;                 /* the call_approvals row */
	const char *callee;         /* NAME or host:NAME */
	const char *callee_version; /* a host tool's: the digest of its config entry */
	const char *binding;        /* sha256 of (callee version, canonical args) */
	const char *args_sha256;    /* of the canonical args */
	const char *caller;         /* NAME@V or program:<hash> */
	const json_t *args;
	int64_t run;                /* a one-off program's run id, or 0 */
	uint64_t timeout_ms;        /* wait at most this long, then deny */
} tg_call_question;
/* ---- who may do what (registry/authz/authz.c) ------------------------------ */

/* The acts on a tool that need a right. A meta-tool's own name (create_tool,
 * rollback_tool, ...) is asked as TG_ACTION_CALL first, then its target
 * with the act it performs. */
typedef enum tg_action {
	TG_ACTION_CALL = 0,    /* run it: tools/call, a bridged callee, a program's callee */
	TG_ACTION_LIST,        /* show it in tools/list */
	TG_ACTION_CREATE,      /* submit a version of it (create_tool) */
	TG_ACTION_ROLLBACK,    /* move its active version (rollback_tool) */
	TG_ACTION_HISTORY,     /* read its versions (tool_history, list_tool_versions) */
	TG_ACTION_APPROVE,     /* decide a call or a version that waits for a person */
} tg_action;

/* With which authority code runs: a real call (what the principal may
 * do), a submission's tests or a pull's re-tests of a remote's version.
 * Tests run before anyone approved anything: they never reach a callee
 * that holds a capability (it is answered from the test's tool_results),
 * and a re-test's bridged calls are charged to config.json's
 * pull_test_max_tool_calls. */
typedef enum tg_authority {
	TG_AUTHORITY_REAL = 0,
	TG_AUTHORITY_TEST,
	TG_AUTHORITY_RETEST,
} tg_authority;

/* Who asks: an MCP session's principal (an HTTP token), or NULL for the
 * local operator (stdio, the CLI), who may do everything. */
typedef struct tg_principal {
	const char *name;            /* the token's name */
	const json_t *tool_patterns; /* fnmatch patterns over tool names, meta-tools
				      * included; NULL = every name */
	int may_approve;             /* may decide what waits for a person */
	int hide_write_tools;        /* tools asking for workspace:write are not there */
} tg_principal;

/* The one decision: may principal p (NULL: the local operator) do act a on
 * tool name, whose version holds capabilities caps (NULL: not looked up
 * yet; then the capability rules wait for the second question, which the
 * call path asks once it knows them)? For TG_ACTION_APPROVE name may be
 * NULL: the right alone (a host call's question names no tool of ours). 0 yes; TG_ERR_DENIED no, with the
 * reason in the error (tg_error_last), which names the principal and the
 * rule; *hidden (may be NULL) is set when the refusal must look like an
 * absent tool (hide_write_tools). Every path that runs, creates, changes
 * or reads a tool asks it (docs/THREAT_MODEL.md, "One decision"). */
int tg_authorize(const tg_principal *p, tg_action a, const char *name, const json_t *caps,
		 int *hidden);

/* One event of an operation in progress, for the MCP session's log and
 * progress notifications (docs/MCP.md, "Logging and progress"): a phase of
 * a submission (vet, build, each test), the compiler's and the analyzer's
 * diagnostics, a line a tool wrote on stderr, the start and end of a call.
 * level is an RFC 5424 name as MCP spells it ("debug", "info", "warning",
 * "error"), or NULL for a progress step that is no log line; logger says
 * who speaks ("create", "vet", "build", "tool", "call"); step of total is
 * a progress step when total > 0, else a log line only. */
typedef struct tg_op_event {
	const char *level;
	const char *logger;
	const char *message;
	unsigned step, total;
} tg_op_event;

typedef struct tg_call_hooks {
	void *ctx;
	/* the session's principal, for every call this operation makes, at
	 * any depth (NULL: the local operator) */
	const tg_principal *principal;
	int (*attempt)(void *ctx, const char *caller, const char *callee, char *why,
		       size_t whylen);
	int (*ask)(void *ctx, const tg_call_question *q, const char **why);
	/* The journaled replay of the 2026-07-28 era (docs/BRIDGE.md, "Replay
	 * after input_required"; replay.c). replay: the journal a redeemed
	 * requestState carried (or NULL): the run's bridged calls that match
	 * it in order are answered from it, not run again. journaled (or
	 * NULL: nothing recorded): when the hooks are cleared, gets the
	 * journal of this run (a new array, the callee's to free): every
	 * bridged call that ran or was replayed before a call asked with
	 * "input_required"; NULL when it passed its caps (then no call was
	 * asked with input_required: they waited on the queue). */
	const json_t *replay;
	void (*journaled)(void *ctx, json_t *journal);
	/* The operation's events (tg_op_event), or NULL: none is made (the
	 * registry formats nothing when it is unset). Called on the thread
	 * doing the work, before the operation returns. */
	void (*event)(void *ctx, const tg_op_event *ev);
} tg_call_hooks;
/* Set (h) or clear (NULL) the hooks; h must outlive their use. Clearing
 * hands the run's journal to the old hooks' journaled. */
void tg_registry_set_call_hooks(tg_registry *r, const tg_call_hooks *h);
/* The cancellation of the caller's request (an MCP notifications/cancelled)
 * for what this handle builds and runs next, or NULL. When it fires, the
 * build or run in flight is killed: a call ends ok=false with reason
 * "cancelled" (logged as its outcome); a create ends TG_ERR_DENIED
 * "cancelled by the client" with a "create_cancelled" audit entry and
 * nothing stored. c must outlive its use. */
void tg_registry_set_cancel(tg_registry *r, const tg_cancel *c);

/* The requestState of a 2026-07-28 input_required result (request_state.c,
 * docs/MCP.md): seal returns "tgs1.<base64 payload>.<hex HMAC-SHA256>" of
 * payload plus the principal, the request's digest, a random state id and
 * an expiry (now + call_approval_timeout_ms), under a key made on first use
 * in <home>/keys/request_state_key (0600). A payload's "journal" (the
 * array of tg_call_hooks.journaled) is not put in the state: it is stored
 * as a row of replay_journals keyed by the state id (schema 7, at most
 * 1 MiB, TG_ERR_LIMIT past it) and its sha256 sealed as "journal_sha256".
 * redeem checks the MAC, the principal, the request digest and the expiry,
 * records the state id as used (single use, table used_request_states),
 * takes the journal row back (checked against its sealed digest, then
 * deleted) and returns the payload with "journal"; TG_ERR_DENIED with the
 * reason ("integrity check failed ...", "issued to another principal",
 * "issued for another request ...", "expired ...", "already used ...",
 * "journal altered ...", "journal missing ..."). */
int tg_registry_state_seal(char **out, tg_registry *r, const json_t *payload,
			   const char *principal, const char *request_sha256);
int tg_registry_state_redeem(json_t **out, tg_registry *r, const char *state,
			     const char *principal, const char *request_sha256);

/* Remotes (<home>/remotes.json; docs/STORE.md). add: TG_ERR_EXISTS when the
 * name is taken, TG_ERR_INVALID for a bad name or URL. list: [{"name","url"}]. */
int tg_registry_remote_add(tg_registry *r, const char *name, const char *url,
			   const tg_actor *who);
int tg_registry_remote_remove(tg_registry *r, const char *name, const tg_actor *who);
int tg_registry_remote_list(json_t **out, tg_registry *r);
/* Push every tool history (fast-forward only) and active pointer to a
 * remote (NULL: origin, else the only one). TG_ERR_CONFLICT when the
 * remote has versions this host lacks (pull first). *out = {"remote","url","ok"}. */
int tg_registry_push(json_t **out, tg_registry *r, const char *remote, const tg_actor *who);
/* Pull: fetch into quarantine under caps, re-vet, re-build and re-test
 * every version new here, record this host's verdict next to the remote's
 * claim, rebase this host's unpushed versions on top of the remote's, and
 * follow a remote active pointer only to a version that passed here and
 * whose approval stands here. TG_PULL_TRUST_SIGNED: a version whose commit
 * a key of <home>/trusted_signers signed, claiming it passed for the very
 * tool.c it holds, is vetted and built but not re-tested ("tests skipped:
 * signed by P" in its reason and local note). *out = {"remote","url","tools":[..],
 * "refused":[..],"disagreements":N,"new_versions":N} (docs/STORE.md). */
#define TG_PULL_TRUST_SIGNED 1u /* skip the tests of versions a trusted key signed as passed */
int tg_registry_pull(json_t **out, tg_registry *r, const char *remote, unsigned flags,
		     const tg_actor *who);

/* Signing (docs/STORE.md "Signed verdicts"). key_init: a new ed25519 key
 * <home>/keys/signing_key (TG_ERR_EXISTS when there is one), audited;
 * key_show: TG_ERR_NOTFOUND when none. *out = {"key","public_key_file",
 * "public_key","allowed_signers","created"}. key_trust: append
 * "PRINCIPAL namespaces="git" KEY" to <home>/trusted_signers, audited. */
int tg_registry_key_init(json_t **out, tg_registry *r, const tg_actor *who);
int tg_registry_key_show(json_t **out, tg_registry *r);
int tg_registry_key_trust(json_t **out, tg_registry *r, const char *principal,
			  const char *pubkey_file, const tg_actor *who);
/* Trusted approvers (docs/STORE.md "Signed decisions"): trust_approver
 * appends "PRINCIPAL namespaces="toolgate-decision" KEY" to
 * <home>/trusted_approvers and forgets an earlier revocation of that key;
 * *out = {"principal","public_key","key","trusted_approvers"}.
 * revoke_approver removes the principal's lines and records each key's
 * revocation time (decisions signed later are refused on pull);
 * *out = {"principal","keys","revoked_at"}; TG_ERR_NOTFOUND when the
 * principal is not there. Both audited. */
int tg_registry_key_trust_approver(json_t **out, tg_registry *r, const char *principal,
				   const char *pubkey_file, const tg_actor *who);
int tg_registry_key_revoke_approver(json_t **out, tg_registry *r, const char *principal,
				    const tg_actor *who);

/* Has this handle opened the store (initialised libgit2)? An open whose
 * store fingerprint matches the one the registry recorded does not; the
 * store is opened on the first operation that needs it. For tests and
 * benchmarks. */
int tg_registry_store_opened(const tg_registry *r);

/* A number that changes whenever the set of active tools changes, also when
 * another process changed it (for notifications/tools/list_changed). */
int tg_registry_toolset_generation(uint64_t *out, tg_registry *r);

/* ---- principals of the MCP HTTP transport (token.c) ---------------------- */

#define TG_TOKEN_LEN 52 /* "tgt_" + 48 hex digits */

typedef struct tg_token_spec {
	const char *name;       /* the principal, ^[a-z][a-z0-9_]{0,63}$ */
	uint32_t max_calls;     /* 0 = unlimited */
	uint32_t max_creates;   /* 0 = unlimited */
	const json_t *tools;    /* array of fnmatch patterns, or NULL = every tool */
	int may_approve;        /* may answer per-call approvals */
} tg_token_spec;

/* Add a principal; out gets its token (shown once: only its SHA-256 is
 * kept). TG_ERR_EXISTS when the name is taken. */
int tg_registry_token_add(char out[TG_TOKEN_LEN + 1], tg_registry *r, const tg_token_spec *spec,
			  const tg_actor *who);
/* [{"name","created","max_calls","max_creates","tools":[..]|null,"may_approve"}] */
int tg_registry_token_list(json_t **out, tg_registry *r);
/* The principal holding this token (one object as in the list), or
 * TG_ERR_NOTFOUND. */
int tg_registry_token_check(json_t **out, tg_registry *r, const char *secret);
/* TG_ERR_NOTFOUND when there is no such principal. */
int tg_registry_token_revoke(tg_registry *r, const char *name, const tg_actor *who);

#endif
