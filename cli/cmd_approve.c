/*
 * cli/cmd_approve.c: `toolgate approve NAME@V [--activate]`: a person
 * grants the capabilities one version asks for (bound to that version's
 * code and capability set). It becomes active, unless a newer version is
 * active: then it is only approved (ready for rollback) and the output says
 * so, unless --activate asks to replace the newer one.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_approve(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	_cleanup_free_ char *name = NULL, *caps = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *ref = NULL;
	unsigned v = 0, flags = 0;
	long long active, from;
	int rc, i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--activate") == 0)
			flags |= TG_APPROVE_ACTIVATE;
		else if (argv[i][0] == '-')
			return cli_usage(cli, "unknown option %.64s", argv[i]);
		else if (!ref)
			ref = argv[i];
		else
			return cli_usage(cli, "too many arguments");
	}
	if (!ref)
		return cli_usage(cli, "needs NAME@VERSION");
	rc = tg_registry_parse_ref(&name, &v, ref);
	if (rc < 0)
		return cli_fail(rc, "approve");
	if (v == 0)
		return cli_usage(cli, "needs NAME@VERSION (the version to approve)");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "approve");
	rc = tg_registry_approve(&res, r, name, v, flags, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "approve");
	if (cli->json)
		return cli_print_json(res);
	caps = tg_json_dump(json_object_get(res, "capabilities"));
	active = (long long)json_integer_value(json_object_get(res, "active_version"));
	from = (long long)json_integer_value(json_object_get(res, "from_version"));
	if (json_is_true(json_object_get(res, "activated")) && from > 0)
		printf("%s v%u approved with capabilities %s: active (was v%lld)\n", name, v,
		       caps ? caps : "?", from);
	else if (json_is_true(json_object_get(res, "activated")))
		/* the tool's first active version: nothing was replaced */
		printf("%s v%u approved with capabilities %s: active\n", name, v,
		       caps ? caps : "?");
	else if (active == (long long)v)
		printf("%s v%u approved with capabilities %s: it was already active\n", name, v,
		       caps ? caps : "?");
	else
		printf("%s v%u approved with capabilities %s: NOT activated, the newer v%lld stays "
		       "active (toolgate rollback %s --to %u, or approve --activate, to switch)\n",
		       name, v, caps ? caps : "?", active, name, v);
	return TG_EXIT_OK;
}
