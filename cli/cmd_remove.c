/*
 * cli/cmd_remove.c: `toolgate remove NAME`: disable a tool. No version stays
 * active; every version, report and event is kept and the removal is
 * audited, so `rollback --to V` (or approving a pending version) brings a
 * version back.
 */
#include "cli.h"
#include "registry/registry.h"

int cmd_remove(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	int rc;

	if (argc != 2 || argv[1][0] == '-')
		return cli_usage(cli, argc < 2 ? "needs NAME" : "takes one NAME and no option");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "remove");
	rc = tg_registry_remove(&res, r, argv[1], &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "remove");
	if (cli->json)
		return cli_print_json(res);
	printf("%s removed: no version is active (was v%lld); history kept\n", cli_line(argv[1]),
	       (long long)json_integer_value(json_object_get(res, "from_version")));
	return TG_EXIT_OK;
}
