/*
 * mcp/state.c: what the two users of a 2026-07-28 requestState share: the
 * per-call approvals (approve.c) and a tool's own input requests
 * (tool_input.c). The principal a state is sealed to (the token's name, or
 * ":stdio" for the local operator's session), the -32602 refusal of a
 * state or its answers (audited "mcp_state_refused"), the redeeming of a
 * state through the backend (tg_mcp_backend.state_redeem) and the
 * session's audit entry through the backend (tg_mcp_backend.audit).
 */
#include "mcp/internal.h"

/* the stdio session's principal in a state: no token name has a colon */
#define STDIO_PRINCIPAL ":stdio"

const char *tg_mcp_state_principal(const tg_mcp_server *s)
{
	return s->opt.principal ? s->opt.principal : STDIO_PRINCIPAL;
}

void tg_mcp_audit(tg_mcp_server *s, const char *event, const char *tool, json_t *details)
{
	if (s->be.audit && details && s->be.audit(s->be.ctx, &s->actor, event, tool, details) < 0)
		tg_mcp_log_error("audit", event);
	json_decref(details);
}

int tg_mcp_state_refuse(tg_mcp_server *s, const json_t *id, const char *tool, const char *why)
{
	int r;

	tg_mcp_audit(s, "mcp_state_refused", tool, json_pack("{s:s}", "reason", why));
	r = tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "Invalid params: %s", why);
	return r < 0 ? r : 1;
}

int tg_mcp_state_redeem(tg_mcp_server *s, const json_t *id, const char *tool, const char *state,
			json_t **payload)
{
	char why[512];
	int r;

	*payload = NULL;
	if (!s->be.state_redeem)
		return tg_mcp_state_refuse(s, id, tool, "requestState: this server issues none");
	r = s->be.state_redeem(s->be.ctx, payload, state, tg_mcp_state_principal(s),
			       s->request_sha256);
	if (r == TG_ERR_DENIED) {
		snprintf(why, sizeof(why), "requestState: %.400s", tg_error_last()->message);
		return tg_mcp_state_refuse(s, id, tool, why);
	}
	if (r < 0) {
		r = tg_mcp_reply_error(s, id, TG_RPC_INTERNAL_ERROR, "requestState: %s",
				       tg_error_last()->message);
		return r < 0 ? r : 1;
	}
	return 0;
}
