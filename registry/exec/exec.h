/*
 * registry/exec/exec.h: running a tool, above record/: one sandboxed run
 * (run_tool.c), the host-wide run slots (slots.c), and the governed tool
 * bridge (docs/BRIDGE.md). A run whose capabilities name other tools
 * (tools:NAME, host:NAME) gets fd 3, one end of a socketpair; the other end
 * is served by a thread of the calling process for the length of the run:
 * length-prefixed JSON requests, each checked against the run's declared
 * calls, its call cap, the depth and cycle rules and the run's deadline,
 * then answered through the call function the caller handed in (the call
 * layer's, one layer up). Host tools (bridge_host.c), per-call approvals
 * (call_approval.c), the replay journal (replay.c, request_state.c).
 */
#ifndef TG_REG_EXEC_H
#define TG_REG_EXEC_H

#include "registry/authz/authz.h"


#define REG_BRIDGE_MAX_FRAME (1u << 20)   /* bytes of one frame's JSON */
#define REG_BRIDGE_DEF_CALLS REG_LIMITS_DEF_TOOL_CALLS /* config/limits.c */
#define REG_BRIDGE_DEF_DEPTH 2u           /* nested bridged calls, default */

/* The tape of a run's direct bridged calls (replay.c): recorded with a
 * sample of a real top-level call (rec), or played back in a shadow run
 * (play), where it answers every call and nothing runs. */
typedef struct reg_tape {
	json_t *rec;          /* recording: the entries so far, or NULL */
	size_t bytes, max_bytes;
	int over;             /* recording passed max_bytes: not kept */
	const json_t *play;   /* shadow run: the recorded entries, or NULL */
	char *used;           /* play: one flag per entry (the caller's) */
	unsigned unexpected;  /* play: calls the tape did not hold */
	char first_unexpected[80];
} reg_tape;

typedef struct reg_bridge reg_bridge;
struct reg_bridge {
	/* set by reg_bridge_init */
	tg_registry *r;
	const tg_actor *who;
	char name[72];              /* the running tool (cycle check) */
	char caller[96];            /* "name@v" or "program:<hash>" for the audit */
	const json_t *caps;         /* the run's capabilities (tools:X, host:X) */
	uint32_t max_calls;
	unsigned depth;             /* 0: a run started by the agent */
	const reg_bridge *parent;   /* the run that called this one, or NULL */
	uint64_t deadline_ms;       /* tg_now_ms() by which the run must end */
	int64_t run_id;             /* `toolgate run`: its runs row (0: none);
				       inherited by callees for log --run */
	int oneoff;                 /* a one-off program (run.c): its direct
				       callees must hold no capabilities, and
				       each of its host calls waits for a person */
	const json_t *host_results; /* a test's fixtures for host calls */
	const json_t *tool_results; /* a test's fixtures for callees that hold
				       capabilities (authz.c: never run in a test) */
	int test_mode;              /* in a submission's test: host calls are
				       answered from host_results only */
	char *unexpected;           /* test mode: first host call without a
				       fixture ("" if none; the root's buffer) */
	char unexpected_buf[80];
	reg_tape *tape;             /* the root run's tape (replay.c), or NULL;
				       never inherited: a callee's calls are
				       part of its reply */
	/* filled while serving */
	uint32_t attempts;          /* every request, whatever its outcome */
	uint32_t ok;                /* answered with a result */
	int protocol_error;         /* the run was ended for a bad frame */
	char protocol_msg[160];
};

/* Fill b for a run of tool name@version (version 0: a test run of a
 * submission) whose capabilities and limits are caps/limits. Returns 1 when
 * the run needs the bridge (its caps name tools or host tools), 0 when not.
 * The deadline starts as the parent's (0: none); reg_run_tool_ex() sets it
 * to the run's own end, never past the parent's. */
int reg_bridge_init(reg_bridge *b, tg_registry *r, const tg_actor *who, const char *name,
		    unsigned version, const json_t *caps, const json_t *limits,
		    const reg_bridge *parent);

/* Run the sandbox with fd 3 served by b: so->fd3 is set here. After the run
 * a protocol error turns the result's reason into bridge_protocol. */
int reg_bridge_run(tg_run_result **out, reg_bridge *b, tg_sandbox_opts *so);

/* Serve one already-made socket until stop_fd is readable or the peer
 * closes (the thread body; exposed for tests that drive a raw program). */
void reg_bridge_serve(reg_bridge *b, int fd, int stop_fd);


/* reg_run_tool with an optional bridge (NULL: fd 3 stays closed) and a
 * deadline (0: none) that caps the run's timeout. tool names the tool whose
 * run this is (NULL: a one-off program): its sandbox backend is
 * reg_tool_backend's (record/backend.c), and the result says which
 * ("backend"). */
int reg_run_tool_ex(json_t **out, tg_registry *r, const char *tool, const char *binary,
		    const json_t *limits, int ws_read, int ws_write, const char *workspace,
		    const json_t *args, reg_bridge *b, uint64_t deadline_ms);
/* reg_run_tool_ex in steps, for runs on other threads (create/propruns.c):
 * reg_run_prepare fills *so (stdin left empty) and *backend as a run of
 * tool gets them (main thread: it reads the handle); any thread then runs
 * tg_sandbox_run(so) within a slot of reg_run_slot_take_in;
 * reg_run_outcome turns the result (consumed: freed) into the contract's
 * *out, logging what the tool said on stderr when log_stderr (main thread). */
int reg_run_prepare(tg_sandbox_opts *so, int *backend, tg_registry *r, const char *tool,
		    const char *binary, const json_t *limits, int ws_read, int ws_write,
		    const char *workspace);
int reg_run_outcome(json_t **out, tg_registry *r, const tg_sandbox_opts *so, int backend,
		    tg_run_result *rr, const reg_bridge *b, int log_stderr);

/* run_tool.c: a successful result whose $content blocks a client must not
 * see (common/content.c) made a tool error in place: ok false, reason
 * "invalid_content", error TG_CONTENT_REFUSED and the reason, the value
 * dropped. Used by calls and shadow runs. 0, or TG_ERR_NOMEM. */
int reg_result_content(json_t *res);

/* bridge_manifest.c: "calls" is an array of at most REG_BRIDGE_MAX_CALLS
 * distinct tool names (not the tool's own) or host:NAME, and every tools:/
 * host: capability has its entry there. */
#define REG_BRIDGE_MAX_CALLS 32
int reg_bridge_check_calls(const tg_registry *r, const json_t *m, const char *self);
/* A copy of manifest m whose capabilities hold tools:NAME / host:NAME for
 * every entry of "calls" (the approval path then covers them). */
int reg_bridge_manifest(json_t **out, const json_t *m);

/* 1 if caps hold a tools:* or host:* capability. */
int reg_bridge_wanted(const json_t *caps);

/* bridge_host.c: answer one host call of run b: schema, fixtures in tests, the approval
 * policy (call_approval.c), then the trusted program. *reply gets a reply
 * object for request id; *outcome the audit outcome. */
json_t *reg_host_call(reg_bridge *b, json_int_t id, const char *name, const json_t *args,
		      const char **outcome, int64_t *approval_id);

/* call_approval.c: per-call approval by a person. Queue the call, wait for
 * a decision up to the config timeout or until_ms (whichever comes first).
 * Returns 1 approved, 0 denied / timed out (*why says which: "denied",
 * "timeout"), <0 error. *id gets the queue row. */
int reg_call_approval_wait(reg_bridge *b, const char *tool, const char *callee_version,
			   const json_t *args, int64_t *id, const char **why);
/* The tables of runs, programs and call approvals (created when first
 * needed: they are not in the migrations the other modules share). */
int reg_bridge_tables(tg_registry *r);
/* replay.c: the journaled replay after input_required (docs/BRIDGE.md). */
#define REG_REPLAY_MAX_BYTES (1u << 20)
/* Start (from the hooks' replay and journaled) and end (hand the journal
 * to the hooks' journaled) the journal of the hooks' run. */
void reg_replay_begin(tg_registry *r, const tg_call_hooks *h);
void reg_replay_end(tg_registry *r);
/* The index of the call that starts now, or -1 when there is no journal. */
int64_t reg_replay_next(tg_registry *r);
/* 0 when the journal passed its caps: a call must not end the run with
 * input_required (it waits on the queue). */
int reg_replay_may_ask(const tg_registry *r);
/* The session answered a call with *why: "input_required" stops the
 * journal (what follows belongs to the cut-short run). */
void reg_replay_asked(tg_registry *r, const char *why);
/* sha256 of the canonical args; the callee's version (a host tool's
 * config digest, a registered tool's active commit, "" when none). */
void reg_replay_args_digest(char out[65], const json_t *args);
int reg_replay_callee_version(char out[65], tg_registry *r, const char *tool);
/* The journal's reply to call idx (with id) when its entry matches, else
 * NULL (no entry: run it; a mismatch also ends replay mode). */
json_t *reg_replay_answer(reg_bridge *b, int64_t idx, const char *tool, const char *ver,
			  const char *digest, json_int_t id);
/* Keep the reply of call idx in this run's journal. */
void reg_replay_record(reg_bridge *b, int64_t idx, const char *tool, const char *ver,
		       const char *digest, const json_t *reply, const char *outcome);
/* The replay_journals rows (request_state.c): store one (its own
 * transaction; digest gets its sha256), take one back inside the caller's
 * transaction (checked against digest, then deleted; TG_ERR_DENIED when
 * missing or altered), forget the expired ones. */
int reg_journal_store(tg_registry *r, const char *sid, const char *principal, int64_t exp,
		      const json_t *entries, char digest[65]);
int reg_journal_take(tg_registry *r, const char *sid, const char *digest, json_t **out);
int reg_journal_sweep(tg_registry *r);

/* The tape (reg_tape above): keep call tool(args)'s reply frame, and, in
 * a shadow run, the reply of the first unused entry with the same callee
 * and arguments digest (with id), else an "unexpected" error reply counted
 * in the tape. */
void reg_tape_record(reg_tape *t, const char *tool, const json_t *args, const json_t *reply,
		     const char *outcome);
json_t *reg_tape_answer(reg_tape *t, json_int_t id, const char *tool, const json_t *args);

/* ---- replay.c ----------------------------------------------------------- */
/* Drop the handle's replay journal. */
void reg_replay_free(tg_registry *r);
/* The host-wide build and run slots (slots.c): take one, waiting up to
 * wait_ms (*slot -1 when max_concurrent_builds / max_concurrent_runs is
 * 0); TG_ERR_DENIED naming the key when none frees in time. */
int reg_build_slot_take(tg_registry *r, uint32_t wait_ms, int *slot);
int reg_run_slot_take(tg_registry *r, uint32_t wait_ms, int *slot);
void reg_slot_give(int slot);
/* A run slot for a thread that must not touch the handle: what
 * reg_run_slots_get reads off it (main thread), then reg_run_slot_take_in
 * (any thread, the same wait and refusal as reg_run_slot_take). */
typedef struct reg_run_slots {
	char *dir; /* freed by the caller */
	uint32_t n;
	const tg_cancel *cancel;
} reg_run_slots;
int reg_run_slots_get(reg_run_slots *s, tg_registry *r);
int reg_run_slot_take_in(const reg_run_slots *s, uint32_t wait_ms, int *slot);
/* How many build (build=1) or run slots some process holds now (metrics). */
uint32_t reg_slots_busy(tg_registry *r, int build);
/* Run a built tool once: the call contract. *out = {"ok",..,"result"|"error",
 * "wall_ms","reason"}. With ws_read or ws_write, workspace (the configured
 * host folder, or a pending version's empty scratch folder; NULL: none) is
 * bound at /workspace. */
/* The limits a run of a version with these manifest limits gets
 * (reg_limits_read: its own where within config.json's ceilings, else the
 * defaults) as reg_limits_json gives them: {"timeout_ms","memory_mb","output_kb"}. */
json_t *reg_limits_applied(const tg_registry *r, const json_t *limits);
int reg_run_tool(json_t **out, tg_registry *r, const char *binary, const json_t *limits,
		 int ws_read, int ws_write, const char *workspace, const json_t *args);
/* The empty folder for the tests of a version that awaits approval is a
 * work folder of kind "scratch" (cache.c): they see it at /workspace, never
 * the host's; swept at the next open when a crash leaves one behind. */


#endif
