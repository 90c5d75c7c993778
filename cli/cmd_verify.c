/*
 * cli/cmd_verify.c: `toolgate verify`: check that the store, the registry
 * and the audit chain agree. Exit 0 when they do, 1 with one line per
 * problem when they do not. Notes (repairs made on open, unfinished calls)
 * are printed either way. A registry.db rebuilt from the store (its audit
 * history lost) is a problem until `verify --acknowledge-rebuild`.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_verify(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	json_t *p;
	size_t i;
	int rc, ok;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--acknowledge-rebuild") != 0))
		return cli_usage(cli, "takes no arguments but --acknowledge-rebuild");
	rc = tg_registry_open_flag(&r, cli->home_flag, 
				   argc == 1 ? TG_REGISTRY_OPEN_VERIFY | TG_REGISTRY_OPEN_READONLY : 0);
	if (rc < 0 && argc == 1 && strstr(tg_error_last()->message, REG_DAMAGED)) {
		/* too damaged to open: that is verify's finding, not its failure */
		if (cli->json) {
			_cleanup_json_ json_t *o = json_pack(
				"{s:b, s:[s], s:[], s:{s:i, s:i}}", "ok", 0, "problems",
				tg_error_last()->message, "notes", "checked", "tools", 0, "versions", 0);
			rc = o ? cli_print_json(o) : TG_EXIT_ENV;
			return rc != TG_EXIT_OK ? rc : TG_EXIT_VERDICT;
		}
		printf("PROBLEM: %s\n", cli_line(tg_error_last()->message));
		printf("FAILED: registry.db could not be opened\n");
		return TG_EXIT_VERDICT;
	}
	if (rc < 0)
		return cli_fail(rc, "verify");
	if (argc == 2) {
		/* a person says: I know the history before the rebuild is lost */
		tg_actor who = { "cli", NULL };
		rc = tg_registry_acknowledge_rebuild(&res, r, &who);
		tg_registry_free(r);
		if (rc < 0)
			return cli_fail(rc, "verify");
		if (cli->json)
			return cli_print_json(res);
		printf("acknowledged: registry.db was rebuilt at %s (unix time); its earlier "
		       "audit and call logs are lost\n",
		       cli_jline(json_object_get(res, "rebuilt_at")));
		return TG_EXIT_OK;
	}
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
