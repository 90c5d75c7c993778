/*
 * cli/cmd_deny.c: `toolgate deny NAME@V [--reason TEXT]`: a person refuses
 * one version for good. It is recorded and audited; the version can never
 * be approved, activated or rolled back to.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_deny(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	_cleanup_free_ char *name = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *ref = NULL, *reason = NULL;
	unsigned v = 0;
	int rc, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--reason") == 0 || strncmp(a, "--reason=", 9) == 0) {
			reason = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!reason)
				return cli_usage(cli, "--reason needs a text");
		} else if (a[0] == '-') {
			return cli_usage(cli, "unknown option %.64s", a);
		} else if (!ref) {
			ref = a;
		} else {
			return cli_usage(cli, "too many arguments");
		}
	}
	if (!ref)
		return cli_usage(cli, "needs NAME@VERSION");
	rc = tg_registry_parse_ref(&name, &v, ref);
	if (rc < 0)
		return cli_fail(rc, "deny");
	if (v == 0)
		return cli_usage(cli, "needs NAME@VERSION (the version to deny)");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "deny");
	rc = tg_registry_deny(&res, r, name, v, reason, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "deny");
	if (cli->json)
		return cli_print_json(res);
	printf("%s v%u denied: it can never be activated\n", name, v);
	return TG_EXIT_OK;
}
