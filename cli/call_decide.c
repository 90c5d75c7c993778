/*
 * cli/call_decide.c: what `toolgate approve-call ID` and `deny-call ID`
 * share: decide one call of the per-call approval queue (docs/BRIDGE.md)
 * and say so. The run that queued the call is waiting in another process
 * and sees the decision within about 50 ms. Callee and caller come from
 * agents and tools: printed through cli_jline.
 */
#include "cli.h"
#include "registry/registry.h"

int cli_decide_call(tg_cli *cli, int argc, char **argv, int approve)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	uint32_t id;
	int rc;

	if (argc != 2 || cli_parse_u32(argv[1], &id) < 0 || id == 0)
		return cli_usage(cli, "needs the ID of a queued call (toolgate approvals)");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, argv[0]);
	rc = tg_registry_decide_call(&res, r, id, approve, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc == TG_ERR_CONFLICT ? TG_ERR_INVALID : rc, argv[0]);
	if (cli->json)
		return cli_print_json(res);
	printf("call %u %s: %s called by %s\n", id, approve ? "approved" : "denied",
	       cli_jline(json_object_get(res, "callee")), cli_jline(json_object_get(res, "caller")));
	return TG_EXIT_OK;
}
