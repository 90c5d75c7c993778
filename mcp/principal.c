/*
 * mcp/principal.c: what a principal (an HTTP bearer token) narrows in a
 * session: the tools it may see and call (fnmatch patterns over tool names,
 * meta-tools included) and the budgets it shares across all its sessions (a
 * tg_mcp_quota counted under its own lock). A session without a principal,
 * such as stdio, sees every tool and counts for itself.
 */
#include "mcp/internal.h"


const tg_principal *tg_mcp_principal(tg_mcp_server *s)
{
	/* read from the options at each use: the HTTP transport replaces the
	 * option strings with the session's own copies after the session is
	 * made (http.c). A session without a principal (stdio) is the local
	 * operator's, with its --hide-write-tools. */
	s->principal.name = s->opt.principal;
	s->principal.tool_patterns = s->opt.tool_patterns;
	s->principal.may_approve = !s->opt.principal || s->opt.may_approve;
	s->principal.hide_write_tools = s->opt.hide_write_tools;
	return &s->principal;
}

int tg_mcp_tool_allowed(tg_mcp_server *s, tg_action a, const char *name)
{
	/* the registry's one decision; the refusal's reason stays in the error */
	return tg_authorize(tg_mcp_principal(s), a, name, NULL, NULL) == 0;
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
