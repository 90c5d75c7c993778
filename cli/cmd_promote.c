/*
 * cli/cmd_promote.c: `toolgate promote NAME@V`: a person activates a version
 * that shadow runs held out of the active slot (status "held"); its
 * approval must stand as for any activation.
 */
#include "cli.h"
#include "registry/registry.h"

int cmd_promote(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	_cleanup_free_ char *name = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *ref = NULL;
	unsigned v = 0;
	int rc;

	if ((rc = cli_one_arg(cli, argc, argv, 1, &ref)) != 0)
		return rc;
	if (!ref)
		return cli_usage(cli, "needs NAME@V");
	if (tg_registry_parse_ref(&name, &v, ref) < 0 || v == 0)
		return cli_usage(cli, "needs NAME@V");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "promote");
	rc = tg_registry_promote(&res, r, name, v, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "promote");
	if (cli->json)
		return cli_print_json(res);
	printf("%s: v%u is active (promoted by a person; was v%lld)\n", name, v,
	       (long long)json_integer_value(json_object_get(res, "from_version")));
	return TG_EXIT_OK;
}
