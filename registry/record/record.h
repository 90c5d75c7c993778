/*
 * registry/record/record.h: what registry/ records and reads back, above db/: the
 * audit chain and its archive, the call log, review notes in the store,
 * the store handle with its signing keys, version rows, tokens, the status
 * overview, the parsed-schema cache and the hashes everything is keyed by.
 */
#ifndef TG_REG_RECORD_H
#define TG_REG_RECORD_H

#include "registry/db/db.h"

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
/* The commit, capability set and content hash of tool@v (borrowed from
 * *st, which the caller finalizes); TG_ERR_NOTFOUND when there is none. */
int reg_version_binding(sqlite3_stmt **st, tg_registry *r, const char *tool, unsigned v,
			const char **commit, const char **caps, const char **hash);
/* Queue one line as it is (already clean) for the note of commit. */
int reg_review_line(tg_registry *r, const char *commit, const char *line);
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
/* ---- keys.c (signing key and trusted signers) ------------------------- */
char *reg_key_path(const tg_registry *r);
char *reg_trusted_signers_path(const tg_registry *r);
/* Sign the store's new commits when <home>/keys/signing_key exists. */
int reg_sign_setup(tg_registry *r, tg_store *s);
/* The first line of a public key file (at most 16 KiB). */
int reg_read_pub(char **out, const char *path);
/* "KEYTYPE BASE64" of an SSH public key line (comment dropped). */
int reg_pub_key_part(char *out, size_t size, const char *line);
/* A principal name: 1 to 100 of letters, digits and @._-+ */
int reg_principal_check(const char *principal);
/* Append "PRINCIPAL namespaces="NS" KEY" (the key of pubkey_file, also
 * into part) to the allowed-signers file at path (0600, atomically). */
int reg_trust_append(char *part, size_t size, const char *path, const char *principal,
		     const char *ns, const char *pubkey_file);
/* One audit entry in its own transaction (details: taken). */
int reg_audit_one(tg_registry *r, const tg_actor *who, const char *event, json_t *details);
/* ---- approvers.c (trusted approvers and their revocations) ------------- */
char *reg_trusted_approvers_path(const tg_registry *r);
/* "SHA256:..." of a "KEYTYPE BASE64" public key, as ssh-keygen -l says. */
int reg_key_fingerprint(char *out, size_t size, const char *part);
/* The revocation time of an approver key (0: never revoked here). */
int reg_approver_revoked_at(tg_registry *r, const char *key, int64_t *at);
/* {"state": unsigned|good|untrusted|bad, "principal"?, "key"?, "why"?} of a
 * commit, against <home>/trusted_signers. */
int reg_signature_json(json_t **out, tg_registry *r, const char *commit);

/* ---- decision.c (signed decisions in the review notes) ----------------- */
/* The namespace of a signed decision (never "git": a commit signature is
 * not a decision, nor the reverse). */
#define REG_DECISION_NS "toolgate-decision"
/* When the store signs (a host key), queue a signed decision line for the
 * review note of tool@v: "approve", "deny", "remove" or "promote", bound to
 * the version's content hash and capability set, the signer's key
 * fingerprint and the time. Nothing while r->following (a decision followed
 * from a remote is not signed again here). */
int reg_decision_sign(tg_registry *r, const char *tool, unsigned v, const char *decision);
/* A signed decision line taken apart (claims, unchecked). */
typedef struct reg_decision {
	char decision[16];
	char tool[65];
	unsigned version;
	char content_hash[65];
	char caps[640];
	char signer[128];
	int64_t at;
	char payload[1024];  /* the signed bytes */
	char sig[1400];      /* the armored SSH signature */
} reg_decision;
/* 0, or TG_ERR_INVALID "not a signed decision (malformed entry)". */
int reg_decision_parse(reg_decision *out, const char *line);
/* The remote decisions on tool@v not followed here: [{"decision","signer",
 * "principal","signed_at","state": claim|refused,"why"}]. */
int reg_claims_json(json_t **out, tg_registry *r, const char *tool, unsigned v);
/* 16 hex digits naming this host's review ref on remotes (from its public
 * key); "" when it has no key. */
int reg_host_review_id(tg_registry *r, char out[17]);

/* ---- audit.c ----------------------------------------------------------- */
/* Append one entry (inside a transaction). */
int reg_audit_append(tg_registry *r, const tg_actor *who, const char *event,
		     const char *tool, const json_t *details);
/* The tail of a change inside an open transaction: its audit entry, then
 * COMMIT; on a failed append the transaction is rolled back. details NULL
 * means the caller ran out of memory building it (rolled back, NOMEM). */
int reg_audit_commit(tg_registry *r, const tg_actor *who, const char *event,
		     const char *tool, const json_t *details);
/* After COMMIT: advance the anchor file to the head written (monotonic). */
int reg_audit_anchor_update(tg_registry *r);
/* Write the anchor record (seq, hash; NULL hash: zeros), never backwards. */
int reg_audit_anchor_write(tg_registry *r, int64_t seq, const char *hash);
/* Check the chain, the meta head and the anchor; append problems and notes.
 * The table's chain starts at start_seq linked to start_prev: after the
 * entries moved to archive files (reg_archive_verify says where; 1 and
 * zeros without an archive). */
int reg_audit_verify(tg_registry *r, int64_t start_seq, const char start_prev[65],
		     json_t *problems, json_t *notes);
/* A fresh database in a home whose anchor names another one: record it. */
int reg_audit_note_rebuild(tg_registry *r, const tg_actor *who);
/* hash_n of one entry (the chain's definition, audit.c). */
void reg_audit_entry_hash(char out[65], int64_t seq, int64_t at, const char *actor,
			  const char *event, const char *tool, const char *details,
			  const char *prev);
/* ---- audit_mirror.c ---------------------------------------------------- */
/* One entry as audit.c inserted it, for the journal or syslog copy. */
typedef struct reg_mirror_fields {
	int64_t seq, at;
	const char *actor, *event, *tool, *hash;
	const json_t *details; /* "version", "ok", "status", "reason", "principal" read */
} reg_mirror_fields;
/* Encode it and keep it with the transaction (nothing when audit_mirror
 * is off; best effort: a failure only counts a dropped entry). */
void reg_audit_mirror_add(tg_registry *r, const reg_mirror_fields *f);
/* After COMMIT: send what was kept, one datagram each, never blocking. */
void reg_audit_mirror_flush(tg_registry *r);
/* After ROLLBACK: forget it; after ROLLBACK TO a savepoint: forget the
 * entries past through_seq. */
void reg_audit_mirror_drop(tg_registry *r);
void reg_audit_mirror_keep(tg_registry *r, int64_t through_seq);
void reg_audit_mirror_free(tg_registry *r);
/* ---- calls_audit.c ----------------------------------------------------- */
/* verify: every call's audit entry has its calls row and the reverse. */
int reg_calls_cross_check(tg_registry *r, json_t *problems);
/* ---- audit_guard.c ----------------------------------------------------- */
/* The anchor file as the handle holds it open: 1 and *fd (the handle's,
 * never to be closed by the caller; unlock what you lock), 0 when no file
 * has the name (with create: made now, 0600, *created 1), 2 when the name
 * is not a regular file (*fd -1). Every use looks the name up again. */
int reg_anchor_fd(tg_registry *r, int write, int create, int *fd, int *created);
/* Close the held anchor (tg_registry_free). */
void reg_anchor_drop(tg_registry *r);
/* Before an append onto head (seq, hash): 1 and *out the details of a
 * chain_break entry when meta or the anchor disagree with it, else 0;
 * *placeholder 1 when no anchor and no entry exist yet (write one). */
int reg_audit_guard(tg_registry *r, int64_t head_seq, const char head_hash[65],
		    json_t **out, int *placeholder);
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
/* ---- backend.c --------------------------------------------------------- */
/* "native" or "gvisor" (tg_sandbox_backend). */
const char *reg_backend_name(int backend);
/* The backend runs of tool name get (NULL: a one-off program: the home's),
 * and why: *source "home", "tool" (put under gVisor by the operator) or
 * "exception" (native under a gVisor home, by the operator's --weaken). */
int reg_tool_backend(tg_registry *r, const char *name, int *backend, const char **source);
/* Active tools by their calls' backend (status's "backends"). */
int reg_backend_counts(json_t **out, tg_registry *r);
/* ---- samples.c -------------------------------------------------------- */
/* Record one real call (inside the caller's transaction) with the replies
 * of its bridged calls (journal: an array, or NULL) and keep the tool's and
 * the home's samples within config.json's caps. */
int reg_sample_put(tg_registry *r, const char *name, unsigned v, const json_t *args,
		   const json_t *journal, const json_t *res);
/* The tool's newest limit samples (0: all), oldest first, as
 * tg_registry_samples lists them. */
int reg_samples_list(json_t **out, tg_registry *r, const char *name, unsigned limit);
/* Recorded call #id of NAME, as tg_registry_samples lists it (TG_ERR_NOTFOUND
 * when NAME has none). */
int reg_sample_get(json_t **out, tg_registry *r, const char *name, int64_t id);
/* A sample as a manifest test: {"name": "recorded call #ID", "args",
 * "expect" (its result) | "expect_error": true, "host_results"?,
 * "tool_results"? (its bridged calls' recorded results)}; TG_ERR_INVALID
 * when a fixture cannot hold its journal (a failed bridged call, two
 * different replies of one callee). */
int reg_sample_as_test(json_t **out, const json_t *sample);
/* sample_tests.c: the tests a person added from recorded calls. The stored
 * tests of NAME ({"name","test","sample","actor","at"}, oldest first). */
int reg_sample_tests_list(json_t **out, tg_registry *r, const char *name);
/* Append to manifest's "tests" the stored tests of its name that it does
 * not already hold by name; *added: how many. */
int reg_sample_tests_merge(tg_registry *r, json_t *manifest, size_t *added);
/* The shadow runs' report of NAME vV (create/shadow.c), or *out = NULL. */
int reg_shadow_report(json_t **out, tg_registry *r, const char *name, unsigned v);

/* One note per unfinished call (for verify). */
int reg_calls_unfinished(tg_registry *r, json_t *notes);

/* registry.c: 0 when the SDK header is there (r->sdk_include set), else
 * TG_ERR_UNAVAILABLE (exit 3) naming where it was looked for: vetting and
 * building check it before anything is recorded. */
int reg_need_sdk(tg_registry *r);
/* overview.c: the keys `status` adds to the quota figures (tools, pending,
 * rejections_24h, calls_24h, session_defaults), merged into res. */
int reg_status_overview(tg_registry *r, json_t *res);
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
/* ---- hash.c ----------------------------------------------------------- */
/* Append one formatted line (at most 1023 bytes) to a JSON array of
 * strings: verify's problems and notes. */
void reg_add_line(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The content hash of a source (hex). */
void reg_content_hash(char out[65], const char *source, size_t len);
/* The cache key of a content hash: sha256 of it and the build inputs'
 * fingerprint (tg_sandbox_build_inputs). */
int reg_cache_key(char out[65], const char *content_hash, tg_registry *r);
/* sha256 (hex) of a file's bytes. */
int reg_file_sha256(char out[65], const char *path);

#endif
