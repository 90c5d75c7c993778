/*
 * analyzer/policy_doc.c: the effective policy as a document, for the people
 * and agents who write tools: every header, symbol, builtin and attribute a
 * tool may use, the rules for the functions allowed with conditions (paths,
 * descriptors, function tables), and every rule with its severity under
 * this policy and the hint its findings carry. `toolgate policy` prints it;
 * the MCP server publishes it as the resource toolgate://policy.
 */
#include "internal.h"

#include <string.h>

static json_t *list_json(const char *const *v)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; a && v[i]; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int tg_policy_effective(json_t **out, const tg_policy *p)
{
	json_t *o = NULL, *rules = NULL, *checked = NULL;
	size_t i;

	*out = NULL;
	rules = json_array();
	checked = json_pack(
		"{s:s,s:s,s:s,s:s,s:s}", "fopen freopen remove rename",
		"a direct call with a string-constant path under /tmp/ (or /workspace/ with the "
		"workspace:read capability, for writing workspace:write), no '..', a constant mode",
		"read write",
		"a direct call on a constant descriptor: read on 0 (stdin), write on 1 (stdout) or "
		"2 (stderr); fd 3 is the SDK's tool bridge (tg_call_tool)",
		"calls through function pointers",
		"only through a table of the tool's own with static storage and a const element "
		"type, called as t[i](...), t[i].fn(...) or t.fn(...), whose initializer names "
		"functions only",
		"statement expressions",
		"({ ... }) written in the tool is refused; inside a header's macro (assert, ctype "
		"in printf) it is fine",
		"the time", "reading the clock is fine; the host's time zone is not visible (UTC)");
	if (!rules || !checked)
		goto oom;
	for (i = 0; i < tg_nrules; i++) {
		const char *h = tg_hint_for(tg_rules[i].id, NULL);
		json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:s?}", "id", tg_rules[i].id, "category",
				      tg_rules[i].category, "severity",
				      tg_severity_name(p->severity[i]), "summary",
				      tg_rules[i].short_desc, "hint", h);
		if (!e || json_array_append_new(rules, e) < 0)
			goto oom;
	}
	o = json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "version", 1, "headers",
		      list_json(tg_include_list()), "allow", tg_strv_json(p->allow, p->nallow),
		      "builtins", list_json(tg_builtin_list()), "attributes",
		      list_json(tg_attribute_list()), "checked", checked, "rules", rules, "deny",
		      tg_strv_json(p->removed, p->nremoved));
	checked = rules = NULL; /* "o" steals, even on failure */
	if (!o)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*out = o;
	return 0;
oom:
	json_decref(rules);
	json_decref(checked);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}
