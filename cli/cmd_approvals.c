/*
 * cli/cmd_approvals.c: `toolgate approvals`: the per-call approval queue
 * (docs/BRIDGE.md), the calls waiting for a person (id, tool, callee
 * version, arguments, caller); approve-call and deny-call decide one of
 * them (cli/cmd_approve_call.c, cli/cmd_deny_call.c). Tool, caller and
 * arguments come from agents and tools: printed through cli_line. The text
 * form then names the pending versions on which another host's signed
 * decision was not followed (claimed by KEY, why; docs/STORE.md "Signed
 * decisions"); --json keeps the calls array (`list --pending --json` has
 * the claims).
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_approvals(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL, *pending = NULL;
	tg_registry *r = NULL;
	json_t *e;
	size_t i;
	int rc;

	(void)argv;
	if (argc != 1)
		return cli_usage(cli, "takes no arguments");
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "approvals");
	rc = tg_registry_call_approvals(&res, r);
	if (rc == 0 && !cli->json)
		rc = tg_registry_pending(&pending, r);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "approvals");
	if (cli->json)
		return cli_print_json(res);
	if (json_array_size(res) == 0)
		printf("no calls are waiting for a person\n");
	json_array_foreach(res, i, e) {
		_cleanup_free_ char *args = tg_json_dump(json_object_get(e, "args"));
		char ver[13];
		/* the first 12 characters of the version, cut before scrubbing */
		snprintf(ver, sizeof(ver), "%s",
			 json_string_value(json_object_get(e, "callee_version")) ?: "?");
		printf("%lld  %s (version %s) called by %s%s\n    args %s\n",
		       (long long)json_integer_value(json_object_get(e, "id")),
		       cli_jline(json_object_get(e, "tool")), cli_line(ver),
		       cli_jline(json_object_get(e, "caller")),
		       json_integer_value(json_object_get(e, "run")) ? " (a one-off run)" : "",
		       args ? cli_line(args) : "");
	}
	json_array_foreach(pending, i, e) {
		if (!json_array_size(json_object_get(e, "claims")))
			continue;
		printf("%s v%lld awaits approval here:\n", cli_jline(json_object_get(e, "name")),
		       (long long)json_integer_value(json_object_get(e, "version")));
		cli_print_claims(json_object_get(e, "claims"), "    ");
	}
	return TG_EXIT_OK;
}
