/*
 * cli/cmd_init.c: `toolgate init`: create the home folder (mode 0700) and
 * its layout: store.git, registry.db and cache/ (tg_registry_open with
 * create=1). Running it on an existing home is harmless (and re-indexes the
 * registry from the store if it lacks anything).
 */
#include "cli.h"
#include "registry/registry.h"

int cmd_init(tg_cli *cli, int argc, char **argv)
{
	_cleanup_free_ char *home = NULL;
	tg_registry *r = NULL;
	int rc;

	(void)argv;
	if (argc > 1)
		return cli_usage(cli, "takes no arguments");
	rc = cli_home(cli, &home);
	if (rc < 0)
		return cli_fail(rc, "init");
	rc = tg_registry_open(&r, home, 1);
	if (rc < 0)
		return cli_fail(rc, "init");
	tg_registry_free(r);
	if (cli->json) {
		_cleanup_json_ json_t *j = json_pack("{s:s}", "home", home);
		return cli_print_json(j);
	}
	printf("initialized toolgate home %s\n", home);
	return TG_EXIT_OK;
}
