/*
 * cli/cmd_list.c: `toolgate list`: the active toolset, one tool a line
 * (name, active version, capabilities, description).
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_list(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	json_t *t, *c;
	char *desc;
	size_t i, k;
	int rc;

	(void)argv;
	if (argc > 1)
		return cli_usage(cli, "takes no arguments");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "list");
	rc = tg_registry_list(&res, r);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "list");
	if (cli->json)
		return cli_print_json(res);
	if (json_array_size(res) == 0)
		printf("no active tools\n");
	json_array_foreach(res, i, t) {
		printf("%-24s v%-4lld", cli_jline(json_object_get(t, "name")),
		       (long long)json_integer_value(json_object_get(t, "version")));
		json_array_foreach(json_object_get(t, "capabilities"), k, c)
			printf(" [%s]", cli_jline(c));
		desc = strdup(json_string_value(json_object_get(t, "description")) ?: "?");
		if (desc) {
			char *nl = strchr(desc, '\n');
			if (nl)
				*nl = '\0';
		}
		printf("  %.100s\n", cli_line(desc));
		free(desc);
	}
	return TG_EXIT_OK;
}
