/*
 * toolgate/input.h: a tool asking its MCP client for input (docs/SDK.md,
 * "Asking for input"). In the 2026-07-28 era of MCP a tool may answer, in
 * place of its result, a set of named requests: a person's answer
 * (elicitation), an LLM's answer (sampling) or the client's roots. toolgate
 * checks them (at most 8, known kinds, bounded, no control characters),
 * seals them with the call and answers the client input_required; the
 * client's retry runs the same tool again with the answers, which the tool
 * reads with tg_input_response / tg_input_elicited_str / tg_input_sampled_text.
 * A tool that asks answers only that: begin, the requests, tg_out_end().
 *
 *   if (!tg_input_response(a, "user_name")) {
 *       tg_out_input_required_begin();
 *       tg_out_input_elicit("user_name", "What is your name?", "name");
 *       tg_out_end();
 *       return 0;
 *   }
 *
 * Part of the SDK, included by <toolgate/tool.h>.
 */
#ifndef TOOLGATE_INPUT_H
#define TOOLGATE_INPUT_H

#include "json_get.h"
#include "json_out.h"

/* Open the result object and its "$input_required" object (first, once). */
static inline void tg_out_input_required_begin(void)
{
	tg__out_state *o = tg__out();
	if (o->depth != 0)
		tg_tool_fail("tg_out_input_required_begin: the requests are the result itself "
			     "(call it first, once)");
	tg_out_object_begin();
	tg_out_key("$input_required");
	tg_out_object_begin();
}
/* Open request key of method: its "params" object is open after it, for
 * the tool to write with tg_out_key_*; tg_out_input_request_end closes it. */
static inline void tg_out_input_request_begin(const char *key, const char *method)
{
	tg_out_key(key);
	tg_out_object_begin();
	tg_out_key_str("method", method);
	tg_out_key("params");
	tg_out_object_begin();
}
static inline void tg_out_input_request_end(void)
{
	tg_out_object_end();
	tg_out_object_end();
}
/* Ask a person (elicitation/create) for one string named field. */
static inline void tg_out_input_elicit(const char *key, const char *message, const char *field)
{
	tg_out_input_request_begin(key, "elicitation/create");
	tg_out_key_str("message", message);
	tg_out_key("requestedSchema");
	tg_out_object_begin();
	tg_out_key_str("type", "object");
	tg_out_key("properties");
	tg_out_object_begin();
	tg_out_key(field);
	tg_out_object_begin();
	tg_out_key_str("type", "string");
	tg_out_object_end();
	tg_out_object_end();
	tg_out_key("required");
	tg_out_array_begin();
	tg_out_str(field);
	tg_out_array_end();
	tg_out_object_end();
	tg_out_input_request_end();
}
/* Ask the client's LLM (sampling/createMessage) one user message. */
static inline void tg_out_input_sample(const char *key, const char *prompt, long long max_tokens)
{
	tg_out_input_request_begin(key, "sampling/createMessage");
	tg_out_key("messages");
	tg_out_array_begin();
	tg_out_object_begin();
	tg_out_key_str("role", "user");
	tg_out_key("content");
	tg_out_object_begin();
	tg_out_key_str("type", "text");
	tg_out_key_str("text", prompt);
	tg_out_object_end();
	tg_out_object_end();
	tg_out_array_end();
	tg_out_key_int("maxTokens", max_tokens);
	tg_out_input_request_end();
}
/* Ask the client for its roots (roots/list). */
static inline void tg_out_input_roots(const char *key)
{
	tg_out_input_request_begin(key, "roots/list");
	tg_out_input_request_end();
}

/* The client's answer to request key in a retried run, or NULL (the first
 * run, or the client did not answer it): for an elicitation
 * {"action", "content"}, for sampling {"role", "content", "model", ...},
 * for roots {"roots": [{"uri", "name"}]}. */
static inline const tg_value *tg_input_response(const tg_tool_args *a, const char *key)
{
	const tg_value *all = tg_value_get(a, "$input_responses");
	const tg_value *r = tg_value_type(all) == TG_OBJECT ? tg_value_get(all, key) : NULL;
	return tg_value_type(r) == TG_OBJECT ? r : NULL;
}
/* The string field of an accepted elicitation's content, or NULL (no
 * answer, declined, cancelled, or no such string). */
static inline const char *tg_input_elicited_str(const tg_tool_args *a, const char *key,
						const char *field)
{
	const tg_value *r = tg_input_response(a, key);
	const tg_value *action = tg_value_get(r, "action");
	const tg_value *content = tg_value_get(r, "content");
	const tg_value *v = tg_value_get(content, field);
	if (tg_value_type(action) != TG_STRING || strcmp(tg_value_str(action), "accept") != 0 ||
	    tg_value_type(v) != TG_STRING)
		return NULL;
	return tg_value_str(v);
}
/* The text of a sampling answer, or NULL. */
static inline const char *tg_input_sampled_text(const tg_tool_args *a, const char *key)
{
	const tg_value *c = tg_value_get(tg_input_response(a, key), "content");
	const tg_value *t = tg_value_get(c, "text");
	return tg_value_type(t) == TG_STRING ? tg_value_str(t) : NULL;
}

#endif
