/*
 * cli/cmd_rollback.c: `toolgate rollback NAME [--to V]`: re-activate an
 * earlier version that passed (default: the one active before the current)
 * and whose approval stands (it asks for no capability, or a person
 * approved that exact version); never a denied one.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_rollback(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *name = NULL;
	uint32_t to = 0;
	int rc, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--to") == 0 || strncmp(a, "--to=", 5) == 0) {
			const char *val = a[4] == '=' ? a + 5 : (i + 1 < argc ? argv[++i] : NULL);
			if (!val)
				return cli_usage(cli, "--to needs a version");
			if (val[0] == 'v')
				val++;
			if (cli_parse_u32(val, &to) < 0 || to == 0)
				return cli_usage(cli, "--to needs a positive version number");
		} else if (a[0] == '-') {
			return cli_usage(cli, "unknown option %.64s", a);
		} else if (!name) {
			name = a;
		} else {
			return cli_usage(cli, "too many arguments");
		}
	}
	if (!name)
		return cli_usage(cli, "needs NAME");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "rollback");
	rc = tg_registry_rollback(&res, r, name, to, 0, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "rollback");
	if (cli->json)
		return cli_print_json(res);
	if (json_is_true(json_object_get(res, "already_active"))) {
		printf("%s: v%lld is already active\n", name,
		       (long long)json_integer_value(json_object_get(res, "version")));
		return TG_EXIT_OK;
	}
	printf("%s: v%lld is active (was v%lld)\n", name,
	       (long long)json_integer_value(json_object_get(res, "version")),
	       (long long)json_integer_value(json_object_get(res, "from_version")));
	return TG_EXIT_OK;
}
