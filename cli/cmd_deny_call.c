/*
 * cli/cmd_deny_call.c: `toolgate deny-call ID`: refuse one call of the
 * per-call approval queue (toolgate approvals lists them; the decision
 * itself is cli_decide_call, cli/call_decide.c).
 */
#include "cli.h"

int cmd_deny_call(tg_cli *cli, int argc, char **argv)
{
	return cli_decide_call(cli, argc, argv, 0);
}
