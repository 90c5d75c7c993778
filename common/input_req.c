/*
 * common/input_req.c: what a tool may ask its MCP client for. A tool's
 * result object with the member "$input_required" (written by the SDK's
 * tg_out_input_* functions, sdk/toolgate/input.h) asks for input in the
 * 2026-07-28 era of MCP: a person's answer (elicitation/create), an LLM's
 * (sampling/createMessage) or the client's roots (roots/list).
 * tg_input_required_check is the one decision on what may reach a client:
 * a bounded number of requests of known kinds, bounded keys and sizes, and
 * no control characters in any string a client may show a person (checked
 * with common/content.c's text rule). The MCP server (mcp/tool_input.c)
 * calls it before it seals the request and answers input_required.
 */
#include "common.h"

#include <string.h>

#define WHY(...) (snprintf(why, n, __VA_ARGS__), -1)

static const struct {
	const char *method, *capability;
} kinds[] = {
	{ "elicitation/create", "elicitation" },
	{ "sampling/createMessage", "sampling" },
	{ "roots/list", "roots" },
};

const char *tg_input_capability(const char *method)
{
	size_t i;

	for (i = 0; method && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].method, method) == 0)
			return kinds[i].capability;
	return NULL;
}

/* args without the members named (a new reference; NULL on OOM). */
static json_t *without(const json_t *args, const char *k1, const char *k2)
{
	json_t *out;

	if (!json_is_object(args) ||
	    (!json_object_get(args, k1) && (!k2 || !json_object_get(args, k2))))
		return json_incref((json_t *)args);
	out = json_copy((json_t *)args);
	if (out) {
		json_object_del(out, k1);
		if (k2)
			json_object_del(out, k2);
	}
	return out;
}

json_t *tg_input_args_bare(const json_t *args)
{
	return without(args, TG_INPUT_RESPONSES_KEY, TG_INPUT_VERSION_KEY);
}

json_t *tg_input_args_for_tool(const json_t *args)
{
	return without(args, TG_INPUT_VERSION_KEY, NULL);
}

int tg_input_pin_check(const json_t *args, unsigned v, char *why, size_t n)
{
	const json_t *pin = json_is_object(args) ? json_object_get(args, TG_INPUT_VERSION_KEY)
						 : NULL;

	if (!pin || (json_is_integer(pin) && json_integer_value(pin) == (json_int_t)v))
		return 0;
	return WHY("requestState: issued by v%lld of the tool, but v%u is active now: call "
		   "again without the state", (long long)json_integer_value(pin), v);
}

int tg_input_required_has(const json_t *result)
{
	return json_is_object(result) && json_object_get(result, TG_INPUT_REQUIRED_KEY) != NULL;
}

/* Every string in v (keys too) passes the text rule; depth bounded. */
static int check_strings(const char *where, const json_t *v, int depth, char *why, size_t n)
{
	const char *k;
	json_t *x;
	size_t i;

	if (depth > 16)
		return WHY("%s is nested deeper than 16", where);
	if (json_is_string(v))
		return tg_content_text_check(where, v, why, n);
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x) {
			json_t *ks = json_string(k);
			int r = ks ? tg_content_text_check(where, ks, why, n) : WHY("out of memory");
			json_decref(ks);
			if (r < 0 || check_strings(where, x, depth + 1, why, n) < 0)
				return -1;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (check_strings(where, x, depth + 1, why, n) < 0)
				return -1;
	}
	return 0;
}

static int key_ok(const char *k)
{
	size_t i, len = strlen(k);

	if (len == 0 || len > TG_INPUT_MAX_KEY)
		return 0;
	for (i = 0; i < len; i++) {
		char c = k[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

static int check_request(const char *key, const json_t *req, char *why, size_t n)
{
	char where[TG_INPUT_MAX_KEY + 64];
	const char *method = json_string_value(json_object_get(req, "method"));
	const json_t *params = json_object_get(req, "params");
	char *dump;
	size_t len;

	snprintf(where, sizeof(where), TG_INPUT_REQUIRED_KEY ".%s", key);
	if (!json_is_object(req) || json_object_size(req) != 2 || !method || !params)
		return WHY("%s must be {\"method\", \"params\"} and nothing else", where);
	if (!tg_input_capability(method))
		return WHY("%s: method %.64s is not one a tool may ask (elicitation/create, "
			   "sampling/createMessage, roots/list)", where, method);
	if (!json_is_object(params))
		return WHY("%s.params must be an object", where);
	dump = json_dumps(req, JSON_COMPACT);
	if (!dump)
		return WHY("out of memory");
	len = strlen(dump);
	free(dump);
	if (len > TG_INPUT_MAX_REQUEST)
		return WHY("%s has %zu bytes (at most %d)", where, len, TG_INPUT_MAX_REQUEST);
	strncat(where, ".params", sizeof(where) - strlen(where) - 1);
	return check_strings(where, params, 0, why, n);
}

int tg_input_required_check(const json_t *result, char *why, size_t n)
{
	const json_t *reqs = json_object_get(result, TG_INPUT_REQUIRED_KEY);
	const char *k;
	json_t *v;

	if (!reqs)
		return 0;
	if (json_object_size(result) != 1)
		return WHY(TG_INPUT_REQUIRED_KEY " must be the only member of the result");
	if (!json_is_object(reqs) || json_object_size(reqs) == 0)
		return WHY(TG_INPUT_REQUIRED_KEY " must be an object of at least one request");
	if (json_object_size(reqs) > TG_INPUT_MAX_REQUESTS)
		return WHY(TG_INPUT_REQUIRED_KEY " has %zu requests (at most %d)",
			   json_object_size(reqs), TG_INPUT_MAX_REQUESTS);
	json_object_foreach((json_t *)reqs, k, v) {
		if (!key_ok(k))
			return WHY(TG_INPUT_REQUIRED_KEY ": a key must be 1 to %d of "
				   "[A-Za-z0-9_.-]", TG_INPUT_MAX_KEY);
		if (strcmp(k, TG_INPUT_APPROVAL_KEY) == 0)
			return WHY(TG_INPUT_REQUIRED_KEY ": the key " TG_INPUT_APPROVAL_KEY
				   " is toolgate's (per-call approvals)");
		if (check_request(k, v, why, n) < 0)
			return -1;
	}
	return 0;
}
