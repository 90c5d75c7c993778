/*
 * cli/cmd_verify.c: `toolgate verify`: check that the store, the registry
 * and the audit chain agree. Exit 0 when they do, 1 with one line per
 * problem when they do not. Notes (repairs made on open, logs lost to a
 * rebuild) are printed either way.
 */
#include "cli.h"
#include "registry/registry.h"

int cmd_verify(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	json_t *p;
	size_t i;
	int rc, ok;

	(void)argv;
	if (argc > 1)
		return cli_usage(cli, "takes no arguments");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "verify");
	rc = tg_registry_verify(&res, r);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "verify");
	ok = json_is_true(json_object_get(res, "ok"));
	if (cli->json) {
		rc = cli_print_json(res);
		return rc != TG_EXIT_OK ? rc : ok ? TG_EXIT_OK : TG_EXIT_VERDICT;
	}
	json_array_foreach(json_object_get(res, "notes"), i, p)
		printf("note: %s\n", cli_line(json_string_value(p)));
	json_array_foreach(json_object_get(res, "problems"), i, p)
		printf("PROBLEM: %s\n", cli_line(json_string_value(p)));
	printf("%s: %lld tools, %lld versions checked\n", ok ? "ok" : "FAILED",
	       (long long)json_integer_value(json_object_get(json_object_get(res, "checked"), "tools")),
	       (long long)json_integer_value(json_object_get(json_object_get(res, "checked"), "versions")));
	return ok ? TG_EXIT_OK : TG_EXIT_VERDICT;
}
