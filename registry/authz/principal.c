/*
 * registry/authz/principal.c: the principal-level part of the one decision,
 * tg_authorize (registry.h): a principal's fnmatch patterns over tool names
 * (meta-tools included) bound every act on a tool, calling it, listing it,
 * creating, rolling back or reading the history of it; with
 * hide_write_tools a tool whose version asks for workspace:write is not
 * there for it; only a principal with may_approve decides what waits for a
 * person. It needs no registry handle: the MCP server process asks it for
 * tools/list and the meta-tools' targets, the call path (authz.c) for every
 * call at every depth.
 */
#include "registry/registry.h"

#include <fnmatch.h>
#include <string.h>

static int caps_write(const json_t *caps)
{
	size_t i;
	json_t *c;

	json_array_foreach(caps, i, c) {
		if (json_is_string(c) && strcmp(json_string_value(c), "workspace:write") == 0)
			return 1;
	}
	return 0;
}

static int name_allowed(const tg_principal *p, const char *name)
{
	const json_t *pat;
	size_t i;

	if (!p || !p->tool_patterns)
		return 1;
	json_array_foreach(p->tool_patterns, i, pat) {
		if (json_is_string(pat) && fnmatch(json_string_value(pat), name, 0) == 0)
			return 1;
	}
	return 0;
}

static const char *act_word(tg_action a)
{
	switch (a) {
	case TG_ACTION_CALL:
		return "use";
	case TG_ACTION_LIST:
		return "see";
	case TG_ACTION_CREATE:
		return "create";
	case TG_ACTION_ROLLBACK:
		return "roll back";
	case TG_ACTION_HISTORY:
		return "read the history of";
	case TG_ACTION_APPROVE:
		return "decide on";
	}
	return "use";
}

int tg_authorize(const tg_principal *p, tg_action a, const char *name, const json_t *caps,
		 int *hidden)
{
	if (hidden)
		*hidden = 0;
	if (!p)
		return 0; /* the local operator */
	if (a == TG_ACTION_APPROVE && !p->may_approve)
		return tg_error_set(TG_ERR_DENIED, "principal %s may not approve (token without "
						   "--may-approve)",
				    p->name ? p->name : "(none)");
	if (a == TG_ACTION_APPROVE && !name)
		return 0; /* the right alone: a host call's question */
	if (!name || !name_allowed(p, name))
		return tg_error_set(TG_ERR_DENIED, "principal %s may not %s tool %.64s",
				    p->name ? p->name : "(none)", act_word(a), name ? name : "");
	if (caps && p->hide_write_tools && caps_write(caps) &&
	    (a == TG_ACTION_CALL || a == TG_ACTION_LIST)) {
		if (hidden)
			*hidden = 1;
		return tg_error_set(TG_ERR_DENIED, "no active tool named %.64s", name);
	}
	return 0;
}

