/*
 * cli/cmd_push.c: `toolgate push [REMOTE]`: send the tool histories to a
 * remote (docs/STORE.md), fast-forward only. It exits 1 when the remote
 * moved since the last pull (pull first).
 */
#include "cli.h"
#include "registry/registry.h"

int cmd_push(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *remote;
	int rc;

	if ((rc = cli_one_arg(cli, argc, argv, 1, &remote)) != 0)
		return rc;
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "push");
	rc = tg_registry_push(&res, r, remote, &who);
	tg_registry_free(r);
	if (rc == TG_ERR_CONFLICT) {
		cli_fail(rc, "push");
		return TG_EXIT_VERDICT;
	}
	if (rc < 0)
		return cli_fail(rc, "push");
	if (cli->json)
		return cli_print_json(res);
	printf("pushed to %s\n", cli_jline(json_object_get(res, "remote")));
	return TG_EXIT_OK;
}
