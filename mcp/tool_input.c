/*
 * mcp/tool_input.c: a tool asking its client for input (docs/MCP.md, "A
 * tool asking for input"). A registered tool's result {"$input_required":
 * {...}} (the SDK's tg_out_input_*) is, in the 2026-07-28 era, checked by
 * common/input_req.c (known kinds, bounded, no control characters), cut to
 * the requests the client declared it can answer (its clientCapabilities),
 * sealed into a requestState by the registry (tg_mcp_backend.state_seal:
 * HMAC, single use, expiry, bound to the principal and the digest of the
 * tool's name and arguments; the tool's version, the request keys, their
 * digest and the round inside) and answered as resultType "input_required".
 * The client's retry (inputResponses + requestState) is redeemed here
 * (approve.c hands over a state whose answers are not a call approval):
 * the answers to the sealed keys, and only those, reach the tool's next
 * run as the argument "$input_responses" (tg_input_response in the SDK);
 * that run goes through the ordinary call path (tools.c: budget, the
 * registry's authorization, audit), and its version must be the sealed
 * one. In the initialize eras the request is an error result of the call.
 */
#include "mcp/internal.h"

#include <string.h>

#define MAX_ROUNDS 8u /* input_required rounds of one tool request */
#define MAX_CARRIED (16 * 1024) /* bytes of earlier answers a state carries */

/* Bytes of v as compact JSON (0 for NULL, SIZE_MAX when it cannot be
 * written). */
static size_t json_size(const json_t *v)
{
	char *d;
	size_t len;

	if (!v)
		return 0;
	d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!d)
		return SIZE_MAX;
	len = strlen(d);
	free(d);
	return len;
}

void tg_mcp_tool_input_clear(tg_mcp_server *s)
{
	json_decref(s->tool_input);
	s->tool_input = NULL;
}

int tg_mcp_tool_input_begin(tg_mcp_server *s, const json_t *id, const char *name,
			    const char *state, const json_t *responses)
{
	_cleanup_json_ json_t *payload = NULL;
	json_t *ti, *keys, *k, *picked;
	char why[512];
	size_t i, len;
	int r;

	if (!json_is_object(responses))
		return tg_mcp_state_refuse(s, id, name, "inputResponses: must be an object of "
							"answers keyed as the inputRequests were");
	len = json_size(responses);
	if (len > TG_INPUT_MAX_RESPONSES) {
		snprintf(why, sizeof(why), "inputResponses: %zu bytes (at most %d)", len,
			 TG_INPUT_MAX_RESPONSES);
		return tg_mcp_state_refuse(s, id, name, why);
	}
	if ((r = tg_mcp_state_redeem(s, id, name, state, &payload)) != 0)
		return r;
	ti = json_object_get(payload, "tool_input");
	if (!json_is_object(ti))
		return tg_mcp_state_refuse(s, id, name, "inputResponses.call_approval: the answer "
							"to the approval request is missing");
	/* the answers to what the tool asked, and nothing else (extra keys are
	 * ignored); each must be an object */
	keys = json_object_get(ti, "keys");
	/* the earlier rounds' answers the state carries, then this round's */
	picked = json_is_object(json_object_get(ti, "answers"))
			 ? json_deep_copy(json_object_get(ti, "answers"))
			 : json_object();
	if (!picked)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_array_foreach(keys, i, k) {
		const json_t *a = json_object_get(responses, json_string_value(k));
		if (!a)
			continue;
		if (!json_is_object(a)) {
			json_decref(picked);
			snprintf(why, sizeof(why), "inputResponses.%.64s: must be an object (the "
						   "result of the request)", json_string_value(k));
			return tg_mcp_state_refuse(s, id, name, why);
		}
		if (json_object_set(picked, json_string_value(k), (json_t *)a) < 0) {
			json_decref(picked);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
	}
	s->tool_input = json_pack("{s:O, s:O, s:o}", "version", json_object_get(ti, "version"),
				  "round", json_object_get(ti, "round"), "responses", picked);
	return s->tool_input ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int tg_mcp_tool_input_args(tg_mcp_server *s, const json_t *args, json_t **run_args)
{
	*run_args = NULL;
	if (!s->tool_input)
		return 0;
	*run_args = json_copy((json_t *)args);
	if (!*run_args || json_object_set(*run_args, TG_INPUT_RESPONSES_KEY,
					  json_object_get(s->tool_input, "responses")) < 0 ||
	    json_object_set(*run_args, TG_INPUT_VERSION_KEY,
			    json_object_get(s->tool_input, "version")) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

int tg_mcp_tool_input_version(tg_mcp_server *s, const json_t *res, char *why, size_t n)
{
	const char *reason = json_string_value(json_object_get(res, "reason"));

	/* the registry refused the run: another version is active */
	if (!s->tool_input || !reason || strcmp(reason, "version_changed") != 0)
		return 0;
	snprintf(why, n, "%s", json_string_value(json_object_get(res, "error")));
	return -1;
}

/* The requests the client declared it can answer (a new object). */
static json_t *answerable(const tg_mcp_server *s, const json_t *reqs)
{
	json_t *out = json_object(), *v;
	const char *k;

	json_object_foreach((json_t *)reqs, k, v) {
		const char *cap = tg_input_capability(
			json_string_value(json_object_get(v, "method")));
		if (out && cap && json_object_get(s->client_caps, cap) &&
		    json_object_set(out, k, v) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static int seal_and_reply(tg_mcp_server *s, const json_t *id, const char *name,
			  const json_t *res, json_t *reqs, char *why, size_t n)
{
	_cleanup_json_ json_t *payload = NULL;
	_cleanup_free_ char *state = NULL;
	json_t *keys = json_array(), *v, *result, *answers = NULL;
	json_int_t round = 1;
	char digest[65];
	const char *k;
	int r;

	if (s->tool_input) {
		round = json_integer_value(json_object_get(s->tool_input, "round")) + 1;
		answers = json_object_get(s->tool_input, "responses");
	}
	if (json_size(answers) > MAX_CARRIED) {
		json_decref(keys);
		snprintf(why, n, "%s asked for more input, but the answers so far (%zu bytes) are "
				 "more than a requestState carries (%d)", name, json_size(answers),
			 MAX_CARRIED);
		return 0;
	}
	if (round > MAX_ROUNDS) {
		json_decref(keys);
		snprintf(why, n, "%s asked for input %u times in one request (at most %u rounds)",
			 name, MAX_ROUNDS, MAX_ROUNDS);
		return 0;
	}
	json_object_foreach(reqs, k, v)
		if (!keys || json_array_append_new(keys, json_string(k)) < 0)
			break;
	if (tg_json_digest(digest, "toolgate-input-requests-v1", name, reqs) < 0) {
		json_decref(keys);
		return -1;
	}
	payload = json_pack("{s:i, s:{s:s, s:O, s:o, s:s, s:I, s:O?}}", "v", 1, "tool_input",
			    "tool", name, "version", json_object_get(res, "version"), "keys", keys,
			    "requests_sha256", digest, "round", round, "answers", answers);
	if (!payload)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r = s->be.state_seal(s->be.ctx, &state, payload, tg_mcp_state_principal(s),
			     s->request_sha256);
	if (r < 0) {
		r = tg_mcp_reply_error(s, id, TG_RPC_INTERNAL_ERROR, "requestState: %s",
				       tg_error_last()->message);
		return r < 0 ? r : 1;
	}
	tg_mcp_audit(s, "mcp_tool_input_required", name,
	      json_pack("{s:O, s:O, s:s, s:I}", "version", json_object_get(res, "version"), "keys",
			json_object_get(json_object_get(payload, "tool_input"), "keys"),
			"requests_sha256", digest, "round", round));
	result = json_pack("{s:s, s:O, s:s}", "resultType", "input_required", "inputRequests",
			   reqs, "requestState", state);
	r = tg_mcp_reply(s, id, result);
	return r < 0 ? r : 1;
}

int tg_mcp_tool_input_ask(tg_mcp_server *s, const json_t *id, const char *name,
			  const json_t *res, char *why, size_t n)
{
	const json_t *result = json_object_get(res, "result");
	_cleanup_json_ json_t *reqs = NULL;
	char c[400];

	if (!s->modern) {
		snprintf(why, n, "%s asked its client for input ($input_required), which only "
				 "the 2026-07-28 revision of MCP carries: this session speaks an "
				 "older one", name);
		return 0;
	}
	if (tg_input_required_check(result, c, sizeof(c)) < 0) {
		snprintf(why, n, "the tool's input request is refused: %s", c);
		return 0;
	}
	if (!s->be.state_seal) {
		snprintf(why, n, "%s asked for input, but this server cannot seal a requestState",
			 name);
		return 0;
	}
	reqs = answerable(s, json_object_get(result, TG_INPUT_REQUIRED_KEY));
	if (!reqs)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (json_object_size(reqs) == 0) {
		snprintf(why, n, "%s asked for input this client cannot give (its "
				 "clientCapabilities declare none of the methods asked)", name);
		return 0;
	}
	return seal_and_reply(s, id, name, res, reqs, why, n);
}
