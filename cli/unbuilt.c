/*
 * cli/unbuilt.c: weak definitions for the commands whose module is not built
 * yet. Each says so plainly (exit 3); the real command, in its own
 * cli/cmd_<name>.c, overrides the weak symbol. README's table lists what is
 * built. This file goes away when every command exists.
 */
#include "cli.h"

#define TG_UNBUILT(fn)                                                                  \
	__attribute__((weak)) int fn(tg_cli *cli, int argc, char **argv)               \
	{                                                                               \
		(void)argc;                                                             \
		(void)argv;                                                             \
		fprintf(stderr, "toolgate: %s: not built yet (see README)\n", cli->cmd->name); \
		return TG_EXIT_ENV;                                                     \
	}

TG_UNBUILT(cmd_check)
TG_UNBUILT(cmd_create)
TG_UNBUILT(cmd_list)
TG_UNBUILT(cmd_show)
TG_UNBUILT(cmd_history)
TG_UNBUILT(cmd_diff)
TG_UNBUILT(cmd_rollback)
TG_UNBUILT(cmd_approve)
TG_UNBUILT(cmd_call)
TG_UNBUILT(cmd_log)
TG_UNBUILT(cmd_verify)
TG_UNBUILT(cmd_sandbox)
TG_UNBUILT(cmd_serve)
