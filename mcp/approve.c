/*
 * mcp/approve.c: who answers a bridged call that needs a person
 * (docs/MCP.md, "Per-call approvals"). The registry has already queued and
 * bound the call when it asks the session (tg_call_hooks.ask):
 *  - a principal whose token lacks --may-approve is never asked: the call
 *    waits on the operator's queue (`toolgate approvals`) and is denied
 *    when the wait ends; the stdio session is the local operator's and may;
 *  - in the initialize era the client is asked with elicitation/create
 *    (elicit.c: stdio, or the session's stream over HTTP);
 *  - in the 2026-07-28 era the server sends no request: the call is denied
 *    in this run ("input_required"), every later bridged call of the run is
 *    refused (program.c), and the tools/call is answered with resultType
 *    "input_required", the elicitation as inputRequests.call_approval and
 *    a requestState sealed by the registry (HMAC, bound to the principal,
 *    this request's digest and an expiry; the callee, its version and the
 *    args digest inside). The client retries the same tools/call with
 *    inputResponses.call_approval and the state: the state is redeemed
 *    (once), and the run starts again with the answer as a grant that the
 *    matching call (same callee, version and args digest) takes, once.
 *    The calls that ran before the approval point are not run again: the
 *    registry journals them (registry/replay.c), the state carries the
 *    journal (a row bound by its digest) and the retry's calls are
 *    answered from it in order. So an approved call runs exactly once,
 *    and a later call of the same run that needs a person ends the run
 *    with another input_required (up to MAX_ROUNDS per request, then the
 *    queue). Answers not yet taken (a call the retry did not reach) are
 *    carried into the next state.
 */
#include "mcp/internal.h"

#include <string.h>

#define APPROVAL_KEY TG_INPUT_APPROVAL_KEY
#define MAX_GRANTS 16
#define MAX_ROUNDS 8u /* input_required rounds of one request */

int tg_mcp_may_approve(tg_mcp_server *s, const char *callee)
{
	/* the registry's one decision: the right to answer, and the callee
	 * among the names the principal may act on */
	if (tg_authorize(tg_mcp_principal(s), TG_ACTION_APPROVE, callee, NULL, NULL) == 0)
		return 1;
	tg_error_clear();
	return 0;
}

static int same(const json_t *o, const char *key, const char *v)
{
	const char *x = json_string_value(json_object_get(o, key));
	return x && v && strcmp(x, v) == 0;
}

static int modern_ask(tg_mcp_server *s, const tg_call_question *q, const char **why)
{
	json_t *g;
	size_t i;

	if (!s->be.state_seal)
		return tg_error_set(TG_ERR_UNAVAILABLE, "this server cannot seal a requestState");
	json_array_foreach(s->grants, i, g) {
		if (json_is_true(json_object_get(g, "used")) || !same(g, "callee", q->callee) ||
		    !same(g, "callee_version", q->callee_version) ||
		    !same(g, "args_sha256", q->args_sha256))
			continue;
		json_object_set_new(g, "used", json_true());
		if (json_is_true(json_object_get(g, "approve"))) {
			*why = "request_state";
			return 1;
		}
		*why = "request_state_declined";
		return 0;
	}
	if (json_array_size(s->grants) >= MAX_GRANTS)
		return tg_error_set(TG_ERR_UNAVAILABLE, "too many approvals for one request");
	/* the calls that ran before (an approved one too) are answered from
	 * the journal at the retry, not run again (registry/replay.c); past
	 * MAX_ROUNDS rounds of one request the approval waits on the queue */
	if (s->round >= MAX_ROUNDS)
		return tg_error_set(TG_ERR_UNAVAILABLE, "this request had %u input_required rounds: "
							"the next approval waits on the queue",
				    MAX_ROUNDS);
	if (!s->question) {
		json_t *params = tg_mcp_elicit_params(s, q);
		s->question = json_pack("{s:s, s:s, s:s, s:o?}", "callee", q->callee,
					"callee_version", q->callee_version, "args_sha256",
					q->args_sha256, "params", params);
		if (!s->question || !params)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	*why = "input_required";
	return 0;
}

int tg_mcp_ask(void *ctx, const tg_call_question *q, const char **why)
{
	tg_mcp_server *s = ctx;

	if (!tg_mcp_may_approve(s, NULL)) /* a host call: the right alone */
		return tg_error_set(TG_ERR_UNAVAILABLE, "principal %s may not answer approvals",
				    s->opt.principal);
	if (s->modern)
		return modern_ask(s, q, why);
	return tg_mcp_elicit_call(s, q, why);
}

/* ---- the request around it ------------------------------------------------ */

/* inputResponses.call_approval: {"result":{action,content}} or the result
 * itself. 1 approve, 0 deny, -1 missing or malformed. */
static int answer_of(const json_t *responses)
{
	const json_t *a = json_object_get(responses, APPROVAL_KEY);
	const json_t *res = json_object_get(a, "result");
	const char *action;

	if (!json_is_object(a))
		return -1;
	if (!json_is_object(res))
		res = a;
	action = json_string_value(json_object_get(res, "action"));
	if (!action)
		return json_object_get(a, "error") ? 0 : -1;
	return strcmp(action, "accept") == 0 &&
	       json_is_true(json_object_get(json_object_get(res, "content"), "approve"));
}

int tg_mcp_mrtr_begin(tg_mcp_server *s, const json_t *id, const char *name, const json_t *args,
		      const json_t *params)
{
	const json_t *state = json_object_get(params, "requestState");
	const json_t *responses = json_object_get(params, "inputResponses");
	_cleanup_json_ json_t *payload = NULL;
	json_t *grants, *ask;
	char why[512];
	int verdict, r;

	json_decref(s->grants);
	json_decref(s->question);
	json_decref(s->replay);
	json_decref(s->journal);
	s->grants = NULL;
	s->question = NULL;
	s->replay = NULL;
	s->journal = NULL;
	s->round = 0;
	tg_mcp_tool_input_clear(s);
	(void)tg_json_digest(s->request_sha256, "toolgate-request-v1", name, args);
	if (!state && !responses)
		return 0;
	if (!json_is_string(state))
		return tg_mcp_state_refuse(s, id, name, "requestState: must be the string of an input_required "
					   "result (inputResponses came without it)");
	/* answers that are not a call approval: a tool's own input request */
	if (!json_object_get(responses, APPROVAL_KEY))
		return tg_mcp_tool_input_begin(s, id, name, json_string_value(state), responses);
	if (!tg_mcp_may_approve(s, name)) {
		snprintf(why, sizeof(why), "requestState: principal %.64s may not answer approvals "
					   "(its token lacks --may-approve)", s->opt.principal);
		return tg_mcp_state_refuse(s, id, name, why);
	}
	verdict = answer_of(responses);
	if (verdict < 0)
		return tg_mcp_state_refuse(s, id, name, "inputResponses." APPROVAL_KEY ": the answer to the "
					   "approval request is missing");
	if ((r = tg_mcp_state_redeem(s, id, name, json_string_value(state), &payload)) != 0)
		return r;
	grants = json_object_get(payload, "grants");
	grants = json_is_array(grants) ? json_deep_copy(grants) : json_array();
	ask = json_object_get(payload, "ask");
	if (!grants || json_array_append_new(grants, json_pack("{s:O, s:O, s:O, s:b}", "callee",
							       json_object_get(ask, "callee"),
							       "callee_version",
							       json_object_get(ask, "callee_version"),
							       "args_sha256",
							       json_object_get(ask, "args_sha256"),
							       "approve", verdict)) < 0) {
		json_decref(grants);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	s->grants = grants;
	/* the calls the earlier rounds ran, to answer from (replay.c) */
	if (json_is_array(json_object_get(payload, "journal")))
		s->replay = json_incref(json_object_get(payload, "journal"));
	if (json_is_integer(json_object_get(payload, "round")) &&
	    json_integer_value(json_object_get(payload, "round")) > 0 &&
	    json_integer_value(json_object_get(payload, "round")) <= MAX_ROUNDS)
		s->round = (unsigned)json_integer_value(json_object_get(payload, "round"));
	return 0;
}

/* The grants to carry into the next state: those this run did not take.
 * A taken one answered its call, which the journal now answers at the
 * retry; a retry that leaves replay mode before it asks again. */
static json_t *carried_grants(const json_t *grants)
{
	json_t *out = json_array(), *g;
	size_t i;

	json_array_foreach(grants, i, g) {
		if (json_is_true(json_object_get(g, "used")))
			continue;
		if (!out || json_array_append_new(out, json_pack("{s:O, s:O, s:O, s:O}", "callee",
								 json_object_get(g, "callee"),
								 "callee_version",
								 json_object_get(g, "callee_version"),
								 "args_sha256",
								 json_object_get(g, "args_sha256"),
								 "approve",
								 json_object_get(g, "approve"))) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

int tg_mcp_mrtr_end(tg_mcp_server *s, const json_t *id, size_t mark, int r)
{
	_cleanup_json_ json_t *payload = NULL;
	_cleanup_free_ char *state = NULL;
	json_t *q = s->question, *result;

	if (r < 0 || !q) {
		json_decref(s->grants);
		json_decref(q);
		json_decref(s->replay);
		json_decref(s->journal);
		s->grants = NULL;
		s->question = NULL;
		s->replay = NULL;
		s->journal = NULL;
		return r;
	}
	s->question = NULL;
	/* the answer of the run that was cut short is not the answer */
	s->out.len = mark;
	if (s->out.ptr)
		s->out.ptr[mark] = '\0';
	payload = json_pack("{s:i, s:{s:O, s:O, s:O}, s:o, s:I, s:O?}", "v", 1, "ask", "callee",
			    json_object_get(q, "callee"), "callee_version",
			    json_object_get(q, "callee_version"), "args_sha256",
			    json_object_get(q, "args_sha256"), "grants", carried_grants(s->grants),
			    "round", (json_int_t)s->round + 1, "journal", s->journal);
	json_decref(s->grants);
	json_decref(s->replay);
	json_decref(s->journal);
	s->grants = NULL;
	s->replay = NULL;
	s->journal = NULL;
	if (!payload) {
		json_decref(q);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	r = s->be.state_seal(s->be.ctx, &state, payload, tg_mcp_state_principal(s), s->request_sha256);
	if (r < 0) {
		json_decref(q);
		r = tg_mcp_reply_error(s, id, TG_RPC_INTERNAL_ERROR, "requestState: %s",
				       tg_error_last()->message);
		return r;
	}
	tg_mcp_audit(s, "mcp_input_required", NULL,
	      json_pack("{s:O, s:O, s:O, s:I, s:O, s:I}", "callee", json_object_get(q, "callee"),
			"callee_version", json_object_get(q, "callee_version"), "args_sha256",
			json_object_get(q, "args_sha256"), "grants",
			(json_int_t)json_array_size(json_object_get(payload, "grants")), "round",
			json_object_get(payload, "round"), "journal",
			(json_int_t)json_array_size(json_object_get(payload, "journal"))));
	result = json_pack("{s:s, s:{s:{s:s, s:O}}, s:s}", "resultType", "input_required",
			   "inputRequests", APPROVAL_KEY, "method", "elicitation/create", "params",
			   json_object_get(q, "params"), "requestState", state);
	json_decref(q);
	return tg_mcp_reply(s, id, result);
}
