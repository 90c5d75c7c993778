/*
 * mcp/principal.c: what a principal (an HTTP bearer token) narrows in a
 * session: the tools it may see and call (fnmatch patterns over tool names,
 * meta-tools included) and the budgets it shares across all its sessions (a
 * tg_mcp_quota counted under its own lock). A session without a principal,
 * such as stdio, sees every tool and counts for itself.
 */
#include "mcp/mcp.h"

#include <fnmatch.h>

int tg_mcp_tool_allowed(const tg_mcp_server *s, const char *name)
{
	const json_t *p;
	size_t i;

	if (!s->opt.tool_patterns)
		return 1;
	if (!name)
		return 0;
	json_array_foreach(s->opt.tool_patterns, i, p) {
		if (json_is_string(p) && fnmatch(json_string_value(p), name, 0) == 0)
			return 1;
	}
	return 0;
}

uint64_t tg_mcp_count(tg_mcp_server *s, int creates)
{
	tg_mcp_quota *q = s->opt.quota;
	uint64_t n;

	if (!q)
		return creates ? s->creates : s->calls;
	pthread_mutex_lock(&q->lock);
	n = creates ? ++q->creates : ++q->calls;
	pthread_mutex_unlock(&q->lock);
	return n;
}
