/*
 * registry/create/create.h: a submission's way in, above review/: the create
 * pipeline (pipeline.c), manifests (manifest.c), the sandboxed build and
 * its cache (build.c, cache.c), a test's scratch files (testfiles.c), quotas and disk use (quota.c, usage.c),
 * the refusal of a bad manifest with the analyzer's findings (refusal.c)
 * and the store's upkeep after a create (upkeep.c).
 */
#ifndef TG_REG_CREATE_H
#define TG_REG_CREATE_H

#include "registry/review/review.h"

/* ---- quota.c ----------------------------------------------------------- */
/* Allocated bytes (st_blocks) and files below path (0 when it is absent). */
int reg_dir_usage(const char *path, uint64_t *bytes, uint64_t *files);
/* The home's use in disk blocks: store.git, cache/ and registry.db with
 * its -wal and -shm (db). */
int reg_home_usage(tg_registry *r, uint64_t *store, uint64_t *cache, uint64_t *db);
/* quota_home_mb and max_rejected_per_tool_hour: TG_ERR_DENIED naming the
 * quota when a create of name must be refused. */
int reg_quota_before_create(tg_registry *r, const char *name);
/* The create rate limits (quota.c): TG_ERR_DENIED naming the key. */
int reg_rate_before_create(tg_registry *r, const tg_actor *who);
/* max_binary_mb for a freshly built binary: TG_ERR_DENIED when over. */
int reg_quota_binary(tg_registry *r, const char *binary);
/* max_binary_mb in bytes (0: no limit), the build's RLIMIT_FSIZE. */
uint64_t reg_quota_binary_bytes(const tg_registry *r);
/* The refusal of a build the sandbox stopped at that limit. */
int reg_quota_binary_stopped(tg_registry *r);
/* usage.c: the store bytes a create charges to its version (in the
 * create's transaction), the per-tool and per-session quotas
 * (TG_ERR_DENIED naming the key), and their largest use for status
 * ("tool_bytes", "session_bytes" members added to res). */
int reg_usage_record(tg_registry *r, int64_t tool_id, unsigned version, size_t source_len,
		     const json_t *manifest, const json_t *analysis);
int reg_usage_before_create(tg_registry *r, const char *name, const tg_actor *who);
int reg_usage_status(tg_registry *r, json_t *res);
/* ---- testfiles.c ------------------------------------------------------- */
/* A test's "files" in manifest m: bounded, plain names, only with a
 * workspace capability (TG_ERR_INVALID / TG_ERR_LIMIT naming the test). */
int reg_test_files_check(const json_t *m);
/* The scratch folder dir before a test: prev's files (the previous test's,
 * or NULL) removed, files (or NULL) written. Nothing when dir is NULL. */
int reg_test_files_place(const char *dir, const json_t *prev, const json_t *files);
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
/* Mark cache/<key> used before running what it holds (cache.c: the
 * protocol with eviction). 1 when it is there (and now marked), 0 when it
 * is gone (a miss: build again), or an error. */
int reg_cache_mark_used(tg_registry *r, const char *key);
/* Evict builds until cache/ is at most budget bytes: inactive versions'
 * first, least recently used first; a build in use or used in the last
 * ten minutes is kept (kept_in_use), even over the budget. */
typedef struct reg_evict_stats {
	uint64_t bytes_before, bytes_after;
	size_t evicted, evicted_active, kept_in_use;
} reg_evict_stats;
int reg_cache_evict(tg_registry *r, uint64_t budget, reg_evict_stats *out);

/* ---- upkeep.c ---------------------------------------------------------- */
/* After a create: pack the store when its loose objects (estimated) pass
 * pack_loose_objects. */
int reg_upkeep_after_create(tg_registry *r);

/* ---- manifest.c -------------------------------------------------------- */
int reg_caps_from_json(const json_t *caps, int *read, int *write);
/* ---- pipeline.c -------------------------------------------------------- */
/* Vet, build and test a stored manifest + source here (a pulled version):
 * *out = {"status": rejected|failed|pending|inactive, "verdict", "reason",
 * "content_hash", "findings", "tests"}. Records nothing. skip_tests (NULL:
 * run them) = why the tests are not run (pull --trust-signed: "signed by
 * P"); the reason then says "passed; tests skipped: <skip_tests>" and tests
 * is []. */
int reg_revet(json_t **out, tg_registry *r, const json_t *manifest, const char *source,
	      size_t len, const char *skip_tests);

/* ---- propgen.c, proptest.c: property tests (docs/REGISTRY.md) -------- */
/* At most n distinct inputs generated from input_schema, each conforming
 * (validated with the tg_schema flags sflags: reg_schema_flags),
 * the same for the same content hash; *notes = strings naming what was
 * not generated (a pattern without examples). */
int reg_propgen(json_t **out, json_t **notes, const json_t *schema, const char *hash,
		unsigned n, unsigned sflags);
/* A local $ref ("#/$defs/x") of s followed in root (a few hops), else s. */
const json_t *reg_schema_deref(const json_t *root, const json_t *s);
/* 1 when f names a format tg_schema can assert (docs/SCHEMA.md). */
int reg_propgen_format_known(const char *f);
/* propbad.c: inputs that break input_schema one constraint at a time, each
 * made from the conforming input base by construction: *out = [{
 * "constraint": "input_schema.properties.n.minimum", "args": {...}}, ...]
 * (at most 256; "format" ones only when sflags asserts formats). */
int reg_propbad(json_t **out, const json_t *schema, const json_t *base, unsigned sflags);
/* The violating inputs made from the conforming input of inputs with the
 * most properties: each must be refused by in (the compiled input_schema),
 * as a call with it would be before the tool runs. summary gets
 * "violations": {"generated", "refused"}. 0 when all are refused; 1 when
 * one is accepted: a failed entry "violation N" appended to tests, and
 * *reason = "property test violation N failed: input_schema...minimum is
 * not enforced: ..."; < 0 an error. */
int reg_propbad_check(json_t *summary, json_t *tests, char **reason, const tg_schema *in,
		      const json_t *schema, const json_t *inputs, unsigned sflags);
/* A short rendering of v (compact JSON, cut at 400 bytes on a UTF-8
 * boundary with "..."), or NULL when out of memory. */
char *reg_prop_show(const json_t *v);
/* Run the generated inputs of manifest m's tool (binary) as its tests run.
 * *summary = {"inputs", "passed", "runs", "wall_ms", optional "skipped",
 * "notes", "budget", "failed", "shrunk_args", "test"}. On a failure a
 * failed entry (with "suggested_test") is appended to tests and *reason
 * names it; *reason stays NULL when none failed. */
int reg_proptest(json_t **summary, json_t *tests, char **reason, tg_registry *r,
		 const char *binary, const json_t *m, int ws_read, int ws_write,
		 const char *workspace, const char *hash);

/* propruns.c: the inputs run by worker threads that touch no handle, the
 * results taken in input order. reg_propruns_workers: how many (at most
 * the free run slots, twice the cores, 16; TOOLGATE_PROPTEST_WORKERS, for
 * tests, sets it). reg_propruns_start: the runs of inputs (dumped here) with
 * so (reg_run_prepare's; its stdin unused), none started at or after
 * deadline; *out is set even on an error (reg_propruns_stop it).
 * reg_propruns_wait: input i's result (0, *rr to reg_run_outcome), or
 * REG_PROPRUN_BUDGET / REG_PROPRUN_CANCELLED when it was not run, or < 0
 * the error of its run (the slot, the sandbox). reg_propruns_stop: no more
 * input starts; the workers joined; all freed. */
#define REG_PROPRUN_BUDGET 1
#define REG_PROPRUN_CANCELLED 2
typedef struct reg_propruns reg_propruns;
unsigned reg_propruns_workers(tg_registry *r, size_t inputs);
int reg_propruns_start(reg_propruns **out, tg_registry *r, const tg_sandbox_opts *so,
		       const json_t *inputs, uint64_t deadline, unsigned workers);
int reg_propruns_wait(reg_propruns *pr, size_t i, tg_run_result **rr);
void reg_propruns_stop(reg_propruns *pr);

/* ---- build.c ----------------------------------------------------------- */
int reg_policy(tg_registry *r, const tg_policy **out);
/* Build source into the cache (cache/<hash>/tool), checking the object
 * file; *out_ok = 0 with *out_report / *out_log telling why when it does not
 * build or the object check fails. */
int reg_build(tg_registry *r, const char *hash, const char *source, size_t len,
	      const char *const *caps, size_t ncaps, int *out_ok,
	      tg_report **out_report, char **out_log, char **out_binary);
/* A source's text rules (manifest.c): 1..REG_MAX_SOURCE bytes of UTF-8, no
 * NUL, no control characters but tab, newline, CR LF and form feeds, no
 * bidirectional controls. */
int reg_check_source(const char *source, size_t source_len);

/* ---- refusal.c --------------------------------------------------------- */
/* The refusal of a submission whose manifest tg_manifest_validate refused
 * with rc (the message its problems): the analyzer's error findings on the
 * source appended, or why the source was not analyzed; other errors are
 * returned as they are. Builds, stores and audits nothing. */
int reg_manifest_refusal(tg_registry *r, const tg_actor *who, const tg_submission *sub, int rc);
/* The cached binary of content_hash when cache/<key>/tool still hashes to
 * what was recorded when it was built here; *out = NULL (rc 0) otherwise. */
int reg_cached_binary(char **out, tg_registry *r, const char *content_hash);
/* The hashes recorded for cache/<key> (1), or 0 when there is no record. */
int reg_cache_record(tg_registry *r, const char *key, char bin[65], char obj[65]);

/* ---- shadow.c ---------------------------------------------------------- */
/* Run a new version that passed (its build cached under hash; pending: it
 * waits for a person's approval) and the active one on the tool's recorded
 * calls. *out: the report (NULL when promotion is "tests" or no version is
 * active); *hold: config.json's promotion keeps it out of the active slot
 * (never a pending one). */
int reg_shadow_run(json_t **out, int *hold, tg_registry *r, const char *name,
		   const json_t *manifest, const char *hash, int pending);
/* The held version's reason, naming its first regression's arguments. */
char *reg_shadow_reason(const json_t *rep, const char *name, unsigned v);
/* The shadow_reports row and the "shadow" audit entry (in the caller's
 * transaction). */
int reg_shadow_save(tg_registry *r, const tg_actor *who, const char *name, unsigned v,
		    const json_t *rep);

#endif
