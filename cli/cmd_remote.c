/*
 * cli/cmd_remote.c: `toolgate remote add NAME URL | list | remove NAME`:
 * the remotes that push and pull use (cli/cmd_push.c, cli/cmd_pull.c),
 * kept in <home>/remotes.json (docs/STORE.md).
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_remote(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *sub = argc > 1 ? argv[1] : "list";
	json_t *e;
	size_t i;
	int rc;

	if (strcmp(sub, "add") && strcmp(sub, "list") && strcmp(sub, "remove"))
		return cli_usage(cli, "unknown subcommand %.64s (add, list, remove)", sub);
	if (!strcmp(sub, "add") && argc != 4)
		return cli_usage(cli, "add needs NAME URL");
	if (!strcmp(sub, "remove") && argc != 3)
		return cli_usage(cli, "remove needs NAME");
	if (!strcmp(sub, "list") && argc > 2)
		return cli_usage(cli, "list takes no argument");
	rc = tg_registry_open_flag(&r, cli->home_flag, !strcmp(sub, "list") ? TG_REGISTRY_OPEN_READONLY : 0);
	if (rc < 0)
		return cli_fail(rc, "remote");
	if (!strcmp(sub, "add"))
		rc = tg_registry_remote_add(r, argv[2], argv[3], &who);
	else if (!strcmp(sub, "remove"))
		rc = tg_registry_remote_remove(r, argv[2], &who);
	else
		rc = tg_registry_remote_list(&res, r);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "remote");
	if (!res) {
		res = json_pack("{s:s, s:s, s:b}", "remote", argv[2], "action", sub, "ok", 1);
		if (cli->json)
			return cli_print_json(res);
		printf("remote %s: %s\n", cli_line(argv[2]), !strcmp(sub, "add") ? "added" : "removed");
		return TG_EXIT_OK;
	}
	if (cli->json)
		return cli_print_json(res);
	json_array_foreach(res, i, e) {
		printf("%s\t", cli_jline(json_object_get(e, "name")));
		printf("%s\n", cli_jline(json_object_get(e, "url")));
	}
	return TG_EXIT_OK;
}
