/*
 * cli/cmd_init.c: `toolgate init`: create the home folder (mode 0700) and
 * its layout. Running it on an existing home is harmless.
 */
#include "cli.h"

#include <sys/stat.h>

int cmd_init(tg_cli *cli, int argc, char **argv)
{
	_cleanup_free_ char *home = NULL;
	_cleanup_free_ char *cache = NULL;
	int r;

	(void)argv;
	if (argc > 1)
		return cli_usage(cli, "takes no arguments");
	r = cli_home(cli, &home);
	if (r < 0)
		return cli_fail(r, "init");
	r = tg_mkdir_p(home, 0700);
	if (r < 0)
		return cli_fail(r, "init");
	cache = tg_path_join(home, "cache");
	if (!cache)
		return cli_fail(tg_error_set(TG_ERR_NOMEM, "out of memory"), "init");
	r = tg_mkdir_p(cache, 0700);
	if (r < 0)
		return cli_fail(r, "init");
	if (cli->json) {
		_cleanup_json_ json_t *j = json_pack("{s:s}", "home", home);
		return cli_print_json(j);
	}
	printf("initialized toolgate home %s\n", home);
	return TG_EXIT_OK;
}
