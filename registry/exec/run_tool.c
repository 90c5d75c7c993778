/*
 * registry/exec/run_tool.c: one run of a built tool, the call contract.
 * reg_run_tool() runs a binary in the tool sandbox with the manifest's
 * limits (within config.json's ceilings) and, when the run may call other
 * tools, with the bridge on fd 3 (bridge.c); it turns the outcome into the
 * call contract: exit 0 plus one JSON value on stdout is a result,
 * anything else an error whose message is the capped stderr or the kill
 * reason. reg_result_content makes a result with refused content blocks
 * (common/content.c) a tool error for calls and shadow runs.
 * reason. It comes in three steps, which the property tests (create/
 * propruns.c) call apart: reg_run_prepare (the sandbox options: reads the
 * handle), the sandbox run in a run slot (touches no handle, so a worker
 * thread may do it), reg_run_outcome (the stderr event and the contract).
 */

#include <errno.h>
#include <string.h>
#include "registry/exec/exec.h"

static char *clean_text(const char *s, size_t len, size_t cap)
{
	char *o = tg_term_scrub(s, len, TG_TERM_BLOCK);
	size_t j;

	if (!o)
		return NULL;
	j = strlen(o);
	if (j > cap) {
		j = cap;
		while (j > 0 && ((unsigned char)o[j] & 0xc0) == 0x80)
			j--;
	}
	while (j > 0 && (o[j - 1] == '\n' || o[j - 1] == '\r'))
		j--;
	o[j] = '\0';
	return o;
}

json_t *reg_limits_applied(const tg_registry *r, const json_t *limits)
{
	reg_limits lim;

	reg_limits_read(&lim, &r->cfg, limits);
	return reg_limits_json(&lim);
}

int reg_run_tool(json_t **out, tg_registry *r, const char *binary, const json_t *limits,
		 int ws_read, int ws_write, const char *workspace, const json_t *args)
{
	return reg_run_tool_ex(out, r, NULL, binary, limits, ws_read, ws_write, workspace, args,
			       NULL, 0);
}

int reg_run_prepare(tg_sandbox_opts *so, int *backend, tg_registry *r, const char *tool,
		    const char *binary, const json_t *limits, int ws_read, int ws_write,
		    const char *workspace)
{
	reg_limits lim;
	int rc;

	memset(so, 0, sizeof(*so));
	so->program = binary;
	reg_limits_read(&lim, &r->cfg, limits);
	so->timeout_ms = lim.timeout_ms;
	so->memory_mb = lim.memory_mb;
	so->output_kb = lim.output_kb;
	so->cpu_percent = r->cfg.cpu_percent;
	so->cancel = r->cancel;
	/* the tool's backend (the operator's choice, else config.json's
	 * sandbox_backend: record/backend.c); under gVisor a bridged run
	 * (fd 3) is refused by the sandbox with its reason */
	if ((rc = reg_tool_backend(r, tool, backend, NULL)) < 0)
		return rc;
	so->backend = (tg_sandbox_backend)*backend;
	if ((ws_read || ws_write) && workspace) {
		so->workspace = workspace;
		so->workspace_write = ws_write;
	}
	return 0;
}

int reg_run_tool_ex(json_t **out, tg_registry *r, const char *tool, const char *binary,
		    const json_t *limits, int ws_read, int ws_write, const char *workspace,
		    const json_t *args, reg_bridge *b, uint64_t deadline_ms)
{
	_cleanup_free_ char *in = tg_json_dump(args);
	tg_sandbox_opts so;
	tg_run_result *rr = NULL;
	int rc, slot = -1, backend;

	*out = NULL;
	if (!in)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_run_prepare(&so, &backend, r, tool, binary, limits, ws_read, ws_write,
				  workspace)) < 0)
		return rc;
	so.stdin_data = in;
	so.stdin_len = strlen(in);
	if (b && b->deadline_ms && (!deadline_ms || b->deadline_ms < deadline_ms))
		deadline_ms = b->deadline_ms;
	if (deadline_ms) {
		/* a bridged call: the caller's run ends at deadline_ms */
		uint64_t now = tg_now_ms(), left = deadline_ms > now ? deadline_ms - now : 0;
		if (left < so.timeout_ms)
			so.timeout_ms = left > 10 ? (uint32_t)left : 10;
	}
	/* one of the host's run slots (slots.c), waiting up to the run's own
	 * timeout; a bridged call runs within its caller's slot */
	if (!deadline_ms && (rc = reg_run_slot_take(r, so.timeout_ms, &slot)) < 0)
		return rc;
	if (b)
		b->deadline_ms = tg_now_ms() + so.timeout_ms;
	tg_prof_mark(TG_PROF_SLOT);
	rc = b ? reg_bridge_run(&rr, b, &so) : tg_sandbox_run(&rr, &so);
	tg_prof_mark(TG_PROF_RUN_DONE);
	reg_slot_give(slot);
	if (rc < 0)
		return tg_error_prefix("sandbox");
	return reg_run_outcome(out, r, &so, backend, rr, b, !deadline_ms);
}

int reg_run_outcome(json_t **out, tg_registry *r, const tg_sandbox_opts *o, int backend,
		    tg_run_result *rr, const reg_bridge *b, int log_stderr)
{
	_cleanup_free_ char *msg = NULL;
	_cleanup_json_ json_t *res = NULL;
	tg_sandbox_opts so = *o;
	json_t *value = NULL;
	tg_json_limits jl = { 0, 256 };
	int rc;

	*out = NULL;
	/* what the tool said on stderr, for the session's log (not for a
	 * bridged callee's run: its caller's log would mix two tools) */
	if (log_stderr && rr->err_len > 0 && reg_events_on(r)) {
		_cleanup_free_ char *said = tg_term_scrub(rr->err, rr->err_len, TG_TERM_BLOCK);
		int fine = rr->reason == TG_REASON_EXITED && rr->exit_code == 0;
		if (said)
			reg_event_lines(r, fine ? "debug" : "info", "tool", said, strlen(said), 64);
	}
	jl.max_bytes = (size_t)so.output_kb * 1024u + 1;
	if (rr->reason == TG_REASON_EXITED && rr->exit_code == 0) {
		rc = tg_json_parse(&value, rr->out ? rr->out : "", rr->out_len, &jl);
		if (rc < 0) {
			char m[1200];
			snprintf(m, sizeof(m), "the tool's output is not one JSON value: %s",
				 tg_error_last()->message);
			tg_error_clear();
			msg = clean_text(m, strlen(m), REG_MAX_ERROR_TEXT);
		}
	} else if (rr->reason == TG_REASON_EXITED) {
		if (rr->err_len > 0) {
			msg = clean_text(rr->err, rr->err_len, REG_MAX_ERROR_TEXT);
		} else if (asprintf(&msg, "the tool exited with status %d", rr->exit_code) < 0) {
			msg = NULL;
		}
	} else {
		char m[256];
		if (rr->reason == TG_REASON_SECCOMP)
			snprintf(m, sizeof(m), "killed by the sandbox: forbidden system call %s",
				 rr->syscall[0] ? rr->syscall : "(unknown)");
		else if (rr->reason == TG_REASON_TIMEOUT)
			snprintf(m, sizeof(m), "killed by the sandbox: timeout after %u ms",
				 so.timeout_ms);
		else if (rr->reason == TG_REASON_MEMORY)
			snprintf(m, sizeof(m), "killed by the sandbox: memory limit of %u MB",
				 so.memory_mb);
		else if (rr->reason == TG_REASON_OUTPUT_LIMIT)
			snprintf(m, sizeof(m), "killed by the sandbox: output over %u KiB",
				 so.output_kb);
		else if (rr->reason == TG_REASON_BRIDGE_PROTOCOL)
			snprintf(m, sizeof(m), "ended by the tool bridge: %s",
				 b && b->protocol_msg[0] ? b->protocol_msg : "protocol error");
		else if (rr->reason == TG_REASON_CANCELLED)
			snprintf(m, sizeof(m), "cancelled by the client");
		else if (rr->reason == TG_REASON_SIGNALED)
			snprintf(m, sizeof(m), "the tool was killed by signal %d", rr->signal);
		else
			snprintf(m, sizeof(m), "killed by the sandbox: %s", tg_reason_name(rr->reason));
		msg = strdup(m);
	}
	res = json_object();
	if (!res || (!value && !msg)) {
		json_decref(value);
		tg_run_result_free(rr);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	json_object_set_new(res, "ok", json_boolean(value != NULL));
	if (value)
		json_object_set_new(res, "result", value);
	else
		json_object_set_new(res, "error", json_string(msg));
	json_object_set_new(res, "reason", json_string(tg_reason_name(rr->reason)));
	json_object_set_new(res, "wall_ms", json_integer((json_int_t)rr->wall_ms));
	json_object_set_new(res, "backend", json_string(reg_backend_name(backend)));
	if (b)
		json_object_set_new(res, "tool_calls", json_integer((json_int_t)b->attempts));
	tg_run_result_free(rr);
	*out = TG_TAKE_PTR(res);
	return 0;
}

int reg_result_content(json_t *res)
{
	char why[512], m[600];

	if (!res || !json_is_true(json_object_get(res, "ok")) ||
	    tg_content_check(json_object_get(res, "result"), why, sizeof(why)) == 0)
		return 0;
	snprintf(m, sizeof(m), TG_CONTENT_REFUSED "%s", why);
	if (json_object_set_new(res, "ok", json_false()) < 0 ||
	    json_object_set_new(res, "error", json_string(m)) < 0 ||
	    json_object_set_new(res, "reason", json_string("invalid_content")) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_object_del(res, "result");
	return 0;
}
