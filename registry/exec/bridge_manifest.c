/*
 * registry/exec/bridge_manifest.c: the manifest's "calls" (docs/BRIDGE.md).
 * Each entry names a registered tool ("word_count") or an operator's host
 * tool ("host:issue_refund") and becomes the capability tools:NAME or
 * host:NAME, which a person approves like workspace:* (the existing
 * approval path: a version that asks for a capability not yet approved
 * stays pending). reg_bridge_manifest() adds those capabilities before the
 * pipeline runs, so the stored tool.json, the registry and the approvals
 * all see the same set.
 */

#include <string.h>
#include "registry/exec/exec.h"

static int in_calls(const json_t *calls, const char *entry)
{
	size_t i;
	json_t *c;

	json_array_foreach(calls, i, c) {
		const char *s = json_string_value(c);
		if (s && strcmp(s, entry) == 0)
			return 1;
	}
	return 0;
}

int reg_bridge_check_calls(const tg_registry *r, const json_t *m, const char *self)
{
	const json_t *calls = json_object_get(m, "calls"), *caps = json_object_get(m, "capabilities");
	size_t i, k;
	json_t *c;

	if (calls && !json_is_array(calls))
		return tg_error_set(TG_ERR_INVALID, "calls: must be an array");
	if (json_array_size(calls) > REG_BRIDGE_MAX_CALLS)
		return tg_error_set(TG_ERR_LIMIT, "calls: %zu entries, at most %d allowed",
				    json_array_size(calls), REG_BRIDGE_MAX_CALLS);
	json_array_foreach(calls, i, c) {
		const char *s = json_string_value(c), *name;
		if (!s)
			return tg_error_set(TG_ERR_INVALID, "calls[%zu]: must be a string", i);
		name = strncmp(s, "host:", 5) == 0 ? s + 5 : s;
		if (!tg_name_valid(name))
			return tg_error_set(TG_ERR_INVALID, "calls[%zu]: must be a tool name or "
							    "host:NAME (names match "
							    "^[a-z][a-z0-9_]{0,63}$)", i);
		if (name != s && !reg_host_find(&r->cfg, name))
			return tg_error_set(TG_ERR_INVALID, "calls[%zu]: %s: this home's config.json "
							    "configures no host tool %s", i, s, name);
		if (self && strcmp(name, self) == 0)
			return tg_error_set(TG_ERR_INVALID, "calls[%zu]: a tool cannot call itself", i);
		for (k = 0; k < i; k++)
			if (json_equal(json_array_get(calls, k), c))
				return tg_error_set(TG_ERR_INVALID, "calls[%zu]: duplicate", i);
	}
	json_array_foreach(caps, i, c) {
		const char *s = json_string_value(c);
		if (s && strncmp(s, "tools:", 6) == 0 && !in_calls(calls, s + 6))
			return tg_error_set(TG_ERR_INVALID, "capabilities[%zu]: %s has no entry \"%s\" "
							    "in \"calls\"", i, s, s + 6);
		if (s && strncmp(s, "host:", 5) == 0 && !in_calls(calls, s))
			return tg_error_set(TG_ERR_INVALID, "capabilities[%zu]: %s has no entry in "
							    "\"calls\"", i, s);
	}
	return 0;
}

int reg_bridge_manifest(json_t **out, const json_t *m)
{
	_cleanup_json_ json_t *copy = NULL;
	json_t *calls, *caps, *c;
	size_t i;

	*out = NULL;
	copy = json_deep_copy(m);
	if (!copy)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	calls = json_object_get(copy, "calls");
	if (!json_is_array(calls) || json_array_size(calls) == 0) {
		*out = TG_TAKE_PTR(copy);
		return 0;
	}
	caps = json_object_get(copy, "capabilities");
	if (!caps) {
		if (json_object_set_new(copy, "capabilities", json_array()) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		caps = json_object_get(copy, "capabilities");
	}
	if (!json_is_array(caps)) {
		*out = TG_TAKE_PTR(copy); /* validation says why */
		return 0;
	}
	json_array_foreach(calls, i, c) {
		const char *s = json_string_value(c);
		char cap[80];
		size_t k;
		json_t *have;
		int found = 0;

		if (!s || strlen(s) > 70)
			continue; /* validation says why */
		snprintf(cap, sizeof(cap), strncmp(s, "host:", 5) == 0 ? "%s" : "tools:%s", s);
		json_array_foreach(caps, k, have)
			if (json_is_string(have) && strcmp(json_string_value(have), cap) == 0)
				found = 1;
		if (!found && json_array_append_new(caps, json_string(cap)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	*out = TG_TAKE_PTR(copy);
	return 0;
}
