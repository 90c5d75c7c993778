/*
 * cli/cmd_approve_call.c: `toolgate approve-call ID`: let one call of the
 * per-call approval queue run (toolgate approvals lists them; the decision
 * itself is cli_decide_call, cli/call_decide.c).
 */
#include "cli.h"

int cmd_approve_call(tg_cli *cli, int argc, char **argv)
{
	return cli_decide_call(cli, argc, argv, 1);
}
