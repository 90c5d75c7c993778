/*
 * cli/cmd_approve.c: `toolgate approve NAME@V`: grant the capabilities a
 * pending version asks for; it passed everything else, so it becomes active.
 */
#include "cli.h"
#include "registry/registry.h"

int cmd_approve(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	_cleanup_free_ char *name = NULL, *caps = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	unsigned v = 0;
	int rc;

	if (argc != 2)
		return cli_usage(cli, "needs NAME@VERSION");
	rc = tg_registry_parse_ref(&name, &v, argv[1]);
	if (rc < 0)
		return cli_fail(rc, "approve");
	if (v == 0)
		return cli_usage(cli, "needs NAME@VERSION (the version to approve)");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "approve");
	rc = tg_registry_approve(&res, r, name, v, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "approve");
	if (cli->json)
		return cli_print_json(res);
	caps = tg_json_dump(json_object_get(res, "capabilities"));
	printf("%s v%u approved with capabilities %s: active (was v%lld)\n", name, v,
	       caps ? caps : "?", (long long)json_integer_value(json_object_get(res, "from_version")));
	return TG_EXIT_OK;
}
