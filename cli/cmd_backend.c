/*
 * cli/cmd_backend.c: `toolgate backend NAME [native|gvisor] [--weaken]`: the
 * sandbox backend a tool's runs get (calls, a create's tests, its bridged
 * calls), an operator's choice kept in registry.db and audited ("backend";
 * registry/record/backend.c decides). Without a backend it shows the
 * current one and where it comes from. Running a tool natively under a
 * home whose config.json says gvisor needs --weaken.
 */
#include "cli.h"
#include "registry/registry.h"
#include "sandbox/sandbox.h"

#include <string.h>

static const char *source_text(const char *src)
{
	return !src || !strcmp(src, "home") ? "the home's default, config.json sandbox_backend"
	       : !strcmp(src, "tool")	    ? "set for this tool"
					    : "set for this tool with --weaken, whatever the home says";
}

int cmd_backend(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *name = NULL, *want = NULL;
	unsigned flags = 0;
	int rc, i, b = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--weaken"))
			flags |= TG_BACKEND_WEAKEN;
		else if (argv[i][0] == '-')
			return cli_usage(cli, "unknown option %.64s", argv[i]);
		else if (!name)
			name = argv[i];
		else if (!want)
			want = argv[i];
		else
			return cli_usage(cli, "too many arguments");
	}
	if (!name)
		return cli_usage(cli, "needs NAME");
	if (want && strcmp(want, "native") && strcmp(want, "gvisor"))
		return cli_usage(cli, "backend %.64s: must be native or gvisor", want);
	if (!want && flags)
		return cli_usage(cli, "--weaken needs native");
	if (want && (flags & TG_BACKEND_WEAKEN) && strcmp(want, "native"))
		return cli_usage(cli, "--weaken goes with native only");
	if (want)
		b = !strcmp(want, "gvisor") ? TG_SANDBOX_GVISOR : TG_SANDBOX_NATIVE;
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "backend");
	rc = want ? tg_registry_backend_set(&res, r, name, b, flags, &who)
		  : tg_registry_backend_show(&res, r, name);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "backend");
	if (cli->json)
		return cli_print_json(res);
	printf("%s: %s (%s)\n", cli_line(name), json_string_value(json_object_get(res, "backend")),
	       source_text(json_string_value(json_object_get(res, "source"))));
	return TG_EXIT_OK;
}
