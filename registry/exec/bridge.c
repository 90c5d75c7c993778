/*
 * registry/exec/bridge.c: the serving side of the tool bridge (docs/BRIDGE.md).
 *
 * reg_bridge_run() makes a socketpair, hands one end to the sandbox as the
 * program's fd 3 and serves the other from a thread while tg_sandbox_run()
 * blocks the calling thread; the registry handle is only ever used by one
 * of the two at a time. Frames are a 4-byte big-endian length and one JSON
 * object. A frame that is empty, over 1 MiB, cut short or not a request
 * ends the run: the server shuts its end down, the sandbox sees the hangup
 * and kills the program (reason bridge_protocol). Each request counts
 * against the run's limits.max_tool_calls whatever its outcome; it is then
 * checked (declared in the capabilities, depth, cycle, deadline) and run
 * through the call layer's reg_call_ex() (the handle's call_tool hook), so the callee gets its own sandbox, approvals and
 * limits and the caller gains nothing. One request is served at a time.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include "registry/exec/exec.h"

int reg_bridge_wanted(const json_t *caps)
{
	size_t i;
	json_t *c;

	json_array_foreach(caps, i, c) {
		const char *s = json_string_value(c);
		if (s && (strncmp(s, "tools:", 6) == 0 || strncmp(s, "host:", 5) == 0))
			return 1;
	}
	return 0;
}

int reg_bridge_init(reg_bridge *b, tg_registry *r, const tg_actor *who, const char *name,
		    unsigned version, const json_t *caps, const json_t *limits,
		    const reg_bridge *parent)
{
	reg_limits lim;

	reg_limits_read(&lim, &r->cfg, limits);
	memset(b, 0, sizeof(*b));
	b->r = r;
	b->who = who;
	snprintf(b->name, sizeof(b->name), "%s", name);
	if (version)
		snprintf(b->caller, sizeof(b->caller), "%s@%u", name, version);
	else
		snprintf(b->caller, sizeof(b->caller), "%s@test", name);
	b->caps = caps;
	b->max_calls = lim.max_tool_calls;
	b->parent = parent;
	b->depth = parent ? parent->depth + 1 : 0;
	b->deadline_ms = parent ? parent->deadline_ms : 0;
	b->run_id = parent ? parent->run_id : 0;
	b->test_mode = parent ? parent->test_mode : !version;
	b->host_results = parent ? parent->host_results : NULL;
	b->tool_results = parent ? parent->tool_results : NULL;
	b->unexpected = parent ? parent->unexpected : b->unexpected_buf;
	return reg_bridge_wanted(caps);
}

/* ---- one request ------------------------------------------------------ */

static int declared(const reg_bridge *b, const char *prefix, const char *name)
{
	size_t i, pl = strlen(prefix);
	json_t *c;

	json_array_foreach(b->caps, i, c) {
		const char *s = json_string_value(c);
		if (s && strncmp(s, prefix, pl) == 0 && strcmp(s + pl, name) == 0)
			return 1;
	}
	return 0;
}

static json_t *error_reply(json_int_t id, const char *code, const char *msg)
{
	return json_pack("{s:I, s:{s:s, s:s}}", "id", id, "error", "code", code, "message", msg);
}

/* args_sha256 of an audit entry: the canonical digest of the arguments,
 * as the replay journal's ("" when there are none). */
static void args_digest(char out[65], const json_t *args)
{
	out[0] = '\0';
	if (args)
		reg_replay_args_digest(out, args);
}

static void audit_call_ex(reg_bridge *b, const char *tool, const json_t *args,
			  const char *outcome, const json_t *callee, uint64_t wall_ms,
			  int64_t approval)
{
	_cleanup_json_ json_t *d = NULL;
	char digest[65];

	args_digest(digest, args);
	d = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "caller", b->caller, "callee", tool,
		      "args_sha256", digest, "outcome", outcome, "attempt", (json_int_t)b->attempts,
		      "depth", (json_int_t)b->depth, "wall_ms", (json_int_t)wall_ms);
	if (!d)
		return;
	if (callee) {
		json_object_set(d, "callee_version", json_object_get(callee, "version"));
		json_object_set(d, "callee_commit", json_object_get(callee, "commit"));
		/* the backend the callee ran under (run_tool.c), when it ran */
		if (json_object_get(callee, "backend"))
			json_object_set(d, "callee_backend", json_object_get(callee, "backend"));
	}
	if (b->run_id)
		json_object_set_new(d, "run", json_integer(b->run_id));
	if (approval)
		json_object_set_new(d, "approval", json_integer(approval));
	/* an audit failure does not hide the call from the program; it is
	 * left in the thread's error slot only. No fsync of its own: the
	 * program is not the agent, and the run's own outcome (or the next
	 * call's intent) is a durable commit that follows this one in the
	 * WAL, so nothing reaches the agent before this entry is durable */
	(void)reg_audit_nosync(b->r, b->who, "bridge_call", b->name[0] ? b->name : NULL, d);
	tg_error_clear();
}

static void audit_call(reg_bridge *b, const char *tool, const json_t *args, const char *outcome,
		       const json_t *callee, uint64_t wall_ms)
{
	audit_call_ex(b, tool, args, outcome, callee, wall_ms, 0);
}

/* The durable "bridge_call_intent" entry of a host call: < 0 when it
 * cannot be written (the call must not run then). */
static int host_intent(reg_bridge *b, const char *tool, const json_t *args)
{
	_cleanup_json_ json_t *d = NULL;
	char digest[65];

	args_digest(digest, args);
	d = json_pack("{s:s, s:s, s:s, s:I, s:I}", "caller", b->caller, "callee", tool,
		      "args_sha256", digest, "attempt", (json_int_t)b->attempts, "depth",
		      (json_int_t)b->depth);
	if (!d)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (b->run_id)
		json_object_set_new(d, "run", json_integer(b->run_id));
	return tg_registry_audit(b->r, b->who, "bridge_call_intent", b->name[0] ? b->name : NULL, d);
}

static json_t *run_call(reg_bridge *b, json_int_t id, const char *tool, const json_t *args,
			const char **outcome);
static json_t *journaled(reg_bridge *b, json_int_t id, const char *tool, const json_t *args);

static json_t *handle(reg_bridge *b, json_int_t id, const char *tool, const json_t *args)
{
	const reg_bridge *p;
	const char *name = tool;
	char m[1200];
	int host = strncmp(tool, "host:", 5) == 0, session_ok = 1;

	b->attempts++;
	/* the session's budget (MCP) counts every attempt too, a test's and a
	 * re-test's included: a session cap cannot be dodged by calling through
	 * a program (authz.c) */
	{
		char why[256] = "";
		session_ok = reg_charge_attempt(b->r, b->caller, tool, why, sizeof(why));
		if (!session_ok)
			snprintf(m, sizeof(m), "%s", why[0] ? why : "the session's call budget is "
								     "exhausted");
	}
	if (b->attempts > b->max_calls) {
		snprintf(m, sizeof(m), "tool call limit reached: this run may make %u calls "
				       "(limits.max_tool_calls); call %u refused",
			 b->max_calls, b->attempts);
		if (b->attempts == b->max_calls + 1)
			audit_call(b, tool, args, "limit", NULL, 0);
		return error_reply(id, "limit", m);
	}
	if (!session_ok) {
		audit_call(b, tool, args, "session_limit", NULL, 0);
		return error_reply(id, "limit", m);
	}
	if (host)
		name = tool + 5;
	if (!tg_name_valid(name)) {
		audit_call(b, tool, args, "unknown", NULL, 0);
		return error_reply(id, "unknown", "not a valid tool name");
	}
	if (!declared(b, host ? "host:" : "tools:", name)) {
		snprintf(m, sizeof(m), "%s is not declared in this tool's \"calls\"", tool);
		audit_call(b, tool, args, "denied", NULL, 0);
		return error_reply(id, "denied", m);
	}
	if (tg_now_ms() >= b->deadline_ms) {
		audit_call(b, tool, args, "timeout", NULL, 0);
		return error_reply(id, "timeout", "the run's wall-clock limit has passed");
	}
	for (p = b; p; p = p->parent) {
		if (strcmp(p->name, name) == 0) {
			snprintf(m, sizeof(m), "%s is already running in this call chain (a cycle)",
				 name);
			audit_call(b, tool, args, "cycle", NULL, 0);
			return error_reply(id, "cycle", m);
		}
	}
	if (!host && b->depth + 1 > b->r->cfg.max_call_depth) {
		snprintf(m, sizeof(m), "call depth limit of %u reached", b->r->cfg.max_call_depth);
		audit_call(b, tool, args, "depth", NULL, 0);
		return error_reply(id, "depth", m);
	}
	return journaled(b, id, tool, args);
}

/* A call that passed the checks: answered from the replay journal when its
 * entry matches (replay.c), else run; kept in this run's journal. */
static json_t *journaled(reg_bridge *b, json_int_t id, const char *tool, const json_t *args)
{
	int64_t idx = reg_replay_next(b->r);
	const char *outcome = "failed";
	char ver[65] = "", digest[65] = "";
	json_t *reply;

	/* a shadow run: the recorded replies answer, nothing runs */
	if (b->tape && b->tape->play)
		return reg_tape_answer(b->tape, id, tool, args);
	if (idx < 0) {
		reply = run_call(b, id, tool, args, &outcome);
		reg_tape_record(b->tape, tool, args, reply, outcome);
		return reply;
	}
	reg_replay_args_digest(digest, args);
	if (reg_replay_callee_version(ver, b->r, tool) < 0)
		tg_error_clear(); /* "" matches no entry: the call runs */
	reply = reg_replay_answer(b, idx, tool, ver, digest, id);
	if (reply) {
		outcome = json_object_get(reply, "result") ? "ok" : "failed";
		reg_replay_record(b, idx, tool, ver, digest, reply, outcome);
		reg_tape_record(b->tape, tool, args, reply, outcome);
		return reply;
	}
	reply = run_call(b, id, tool, args, &outcome);
	reg_replay_record(b, idx, tool, ver, digest, reply, outcome);
	reg_tape_record(b->tape, tool, args, reply, outcome);
	return reply;
}

/* Run one checked call; *outcome: its audit outcome. */
static json_t *run_call(reg_bridge *b, json_int_t id, const char *tool, const json_t *args,
			const char **outcome_out)
{
	_cleanup_json_ json_t *res = NULL;
	const char *name = tool;
	char m[1200];
	uint64_t t0 = tg_now_ms();
	int host = strncmp(tool, "host:", 5) == 0, rc;

	if (host)
		name = tool + 5;
	if (host) {
		/* host tools run outside the sandbox: no depth or cycle to check */
		const char *outcome = "failed";
		int64_t approval = 0;
		json_t *reply;
		/* a host tool acts outside the sandbox (a refund, a ledger line):
		 * its intent is durable before it may run, or it does not run
		 * (fail closed, as a call's intent in calllog.c); the outcome
		 * follows as the bridge_call entry */
		if (host_intent(b, tool, args) < 0) {
			snprintf(m, sizeof(m), "the audit entry of this call could not be written (%.200s): "
					       "not run",
				 tg_error_last()->message);
			tg_error_clear();
			*outcome_out = "failed";
			return error_reply(id, "internal", m);
		}
		reply = reg_host_call(b, id, name, args, &outcome, &approval);
		if (strcmp(outcome, "ok") == 0)
			b->ok++;
		audit_call_ex(b, tool, args, outcome, NULL, tg_now_ms() - t0, approval);
		*outcome_out = outcome;
		return reply;
	}
	rc = b->r->call_tool(&res, b->r, name, args, b->who, b, NULL);
	if (rc == TG_ERR_DENIED) {
		/* the one decision refused it (authz.c): the principal's patterns
		 * or hidden write tools, a one-off program's callee that holds
		 * capabilities, a test's callee without its fixture */
		snprintf(m, sizeof(m), "%s", tg_error_last()->message);
		tg_error_clear();
		audit_call(b, tool, args, "denied", NULL, tg_now_ms() - t0);
		*outcome_out = "denied";
		return error_reply(id, "denied", m);
	}
	if (rc < 0) {
		int nf = rc == TG_ERR_NOTFOUND;
		snprintf(m, sizeof(m), "%s", tg_error_last()->message);
		tg_error_clear();
		audit_call(b, tool, args, nf ? "unknown" : "failed", NULL, tg_now_ms() - t0);
		*outcome_out = nf ? "unknown" : "failed";
		return error_reply(id, nf ? "unknown" : "internal", m);
	}
	if (!json_is_true(json_object_get(res, "ok"))) {
		const char *e = json_string_value(json_object_get(res, "error"));
		audit_call(b, tool, args, "failed", res, tg_now_ms() - t0);
		*outcome_out = "failed";
		return error_reply(id, "tool_error", e ? e : "the tool failed");
	}
	b->ok++;
	/* a test's callee that holds capabilities: its fixture answered */
	*outcome_out = json_is_true(json_object_get(res, "fixture")) ? "fixture" : "ok";
	audit_call(b, tool, args, *outcome_out, res, tg_now_ms() - t0);
	return json_pack("{s:I, s:O}", "id", id, "result", json_object_get(res, "result"));
}

/* A frame is not a request: end the run. */
static void protocol_error(reg_bridge *b, int fd, const char *why)
{
	b->protocol_error = 1;
	snprintf(b->protocol_msg, sizeof(b->protocol_msg), "%s", why);
	b->attempts++;
	audit_call(b, "(malformed)", NULL, "malformed", NULL, 0);
	shutdown(fd, SHUT_RDWR);
}

void reg_bridge_serve(reg_bridge *b, int fd, int stop_fd)
{
	static const char *const keys[] = { "id", "tool", "args", NULL };

	for (;;) {
		_cleanup_free_ char *body = NULL;
		_cleanup_json_ json_t *req = NULL, *reply = NULL;
		tg_json_limits jl = { REG_BRIDGE_MAX_FRAME, 64 };
		size_t len;
		json_t *id, *tool, *args;
		int k;

		k = tg_frame_read_until(fd, stop_fd, REG_BRIDGE_MAX_FRAME, &body, &len);
		if (k == 0 || k == TG_FRAME_STOPPED)
			return; /* the program closed the channel, or the run ended */
		if (k < 0) {
			/* cut short, empty, over the limit, out of memory */
			protocol_error(b, fd, k == TG_ERR_LIMIT ? "a frame is over 1 MiB"
								: tg_error_last()->message);
			return;
		}
		if (tg_json_parse(&req, body, len, &jl) < 0 || !json_is_object(req) ||
		    tg_json_check_keys(req, keys, "request") < 0) {
			tg_error_clear();
			protocol_error(b, fd, "a frame is not a JSON object of id, tool and args");
			return;
		}
		id = json_object_get(req, "id");
		tool = json_object_get(req, "tool");
		args = json_object_get(req, "args");
		if (!json_is_integer(id) || !json_is_string(tool) || (args && !json_is_object(args))) {
			protocol_error(b, fd, "a request needs an integer id, a string tool and an "
					      "object args");
			return;
		}
		if (!args) {
			json_object_set_new(req, "args", json_object());
			args = json_object_get(req, "args");
		}
		reply = handle(b, json_integer_value(id), json_string_value(tool), args);
		if (!reply || tg_frame_write_until(fd, stop_fd, reply) < 0)
			return;
	}
}

/* ---- one run ---------------------------------------------------------- */

struct serve_arg {
	reg_bridge *b;
	int fd, stop_fd;
};

static void *serve_main(void *arg)
{
	struct serve_arg *a = arg;
	reg_bridge_serve(a->b, a->fd, a->stop_fd);
	return NULL;
}

int reg_bridge_run(tg_run_result **out, reg_bridge *b, tg_sandbox_opts *so)
{
	int sp[2] = { -1, -1 }, stop = -1, rc;
	struct serve_arg a;
	pthread_t th;
	uint64_t one = 1;

	*out = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "bridge: socketpair");
	stop = eventfd(0, EFD_CLOEXEC);
	if (stop < 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "bridge: eventfd");
		goto out;
	}
	a.b = b;
	a.fd = sp[0];
	a.stop_fd = stop;
	if (pthread_create(&th, NULL, serve_main, &a) != 0) {
		rc = tg_error_set(TG_ERR_IO, "bridge: cannot start the serving thread");
		goto out;
	}
	so->fd3 = sp[1];
	rc = tg_sandbox_run(out, so);
	so->fd3 = 0;
	(void)!write(stop, &one, sizeof(one));
	pthread_join(th, NULL);
	if (rc == 0 && b->protocol_error) {
		(*out)->reason = TG_REASON_BRIDGE_PROTOCOL;
		(*out)->exit_code = -1;
	}
out:
	tg_closep(&sp[0]);
	tg_closep(&sp[1]);
	tg_closep(&stop);
	return rc;
}
