/*
 * mcp/backend.c: the registry as the backend of the MCP server. This is
 * the one file of the MCP layer that calls registry/registry.h; everything
 * else goes through the tg_mcp_backend table, which the unit tests fill with
 * an in-memory fake instead. A call's "mcp_call" audit entry is written by
 * the registry in the call's outcome transaction (logs_calls).
 */
#include "mcp/mcp.h"

static int reg_list(void *ctx, json_t **out)
{
	return tg_registry_list(out, ctx);
}

static int reg_create(void *ctx, json_t **out, const tg_submission *sub, const tg_actor *who,
		      const tg_call_hooks *hooks)
{
	int r;

	tg_registry_set_call_hooks(ctx, hooks);
	r = tg_registry_create(out, ctx, sub, who);
	tg_registry_set_call_hooks(ctx, NULL);
	return r;
}

static int reg_call(void *ctx, json_t **out, const char *name, const json_t *args,
		    const tg_actor *who)
{
	return tg_registry_call_logged(out, ctx, name, args, who, "mcp_call");
}

static int reg_rollback(void *ctx, json_t **out, const char *name, unsigned to,
			unsigned flags, const tg_actor *who)
{
	return tg_registry_rollback(out, ctx, name, to, flags, who);
}

static int reg_history(void *ctx, json_t **out, const char *name)
{
	return tg_registry_history(out, ctx, name);
}

static int reg_audit(void *ctx, const tg_actor *who, const char *event, const char *tool,
		     const json_t *details)
{
	return tg_registry_audit(ctx, who, event, tool, details);
}

static int reg_generation(void *ctx, uint64_t *out)
{
	return tg_registry_toolset_generation(out, ctx);
}

static int reg_call_hooked(void *ctx, json_t **out, const char *name, const json_t *args,
			   const tg_actor *who, const tg_call_hooks *hooks)
{
	int r;

	tg_registry_set_call_hooks(ctx, hooks);
	r = tg_registry_call_logged(out, ctx, name, args, who, "mcp_call");
	tg_registry_set_call_hooks(ctx, NULL);
	return r;
}

static int reg_run(void *ctx, json_t **out, const tg_program *p, const tg_actor *who,
		   const tg_call_hooks *hooks)
{
	int r;

	tg_registry_set_call_hooks(ctx, hooks);
	r = tg_registry_run_program(out, ctx, p, who);
	tg_registry_set_call_hooks(ctx, NULL);
	return r;
}

static int reg_state_seal(void *ctx, char **out, const json_t *payload, const char *principal,
			  const char *request_sha256)
{
	return tg_registry_state_seal(out, ctx, payload, principal, request_sha256);
}

static int reg_state_redeem(void *ctx, json_t **out, const char *state, const char *principal,
			    const char *request_sha256)
{
	return tg_registry_state_redeem(out, ctx, state, principal, request_sha256);
}

static void reg_set_cancel(void *ctx, const tg_cancel *c)
{
	tg_registry_set_cancel(ctx, c);
}

void tg_mcp_backend_registry(tg_mcp_backend *out, tg_registry *r)
{
	out->ctx = r;
	out->list = reg_list;
	out->create = reg_create;
	out->call = reg_call;
	out->rollback = reg_rollback;
	out->history = reg_history;
	out->audit = reg_audit;
	out->generation = reg_generation;
	out->call_hooked = reg_call_hooked;
	out->run = reg_run;
	out->state_seal = reg_state_seal;
	out->state_redeem = reg_state_redeem;
	out->set_cancel = reg_set_cancel;
	out->logs_calls = 1; /* reg_call, reg_call_hooked: tg_registry_call_logged */
}
