/*
 * cli/cmd_token.c: `toolgate token add|list|revoke`, the principals of the
 * MCP HTTP transport (`toolgate serve --http`). `add` prints the new token
 * once (only its SHA-256 is stored); each principal carries its own call and
 * create budgets, the tool-name patterns it may see and call, and whether it
 * may approve calls. Adding and revoking are audit entries.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

static int token_add(tg_cli *cli, tg_registry *r, int argc, char **argv)
{
	_cleanup_json_ json_t *tools = NULL;
	tg_token_spec spec = { 0 };
	tg_actor who = { "cli", NULL };
	char secret[TG_TOKEN_LEN + 1];
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--max-calls") == 0 || strcmp(a, "--max-creates") == 0) {
			uint32_t *dst = a[6] == 'c' && a[7] == 'a' ? &spec.max_calls
								   : &spec.max_creates;
			if (i + 1 >= argc || cli_parse_u32(argv[++i], dst) < 0)
				return cli_usage(cli, "%s needs a number (0 = unlimited)", a);
		} else if (strcmp(a, "--tools") == 0) {
			/* every following word that is no option is a pattern */
			if (!tools && !(tools = json_array()))
				return cli_fail(TG_ERR_NOMEM, "token add");
			if (i + 1 >= argc || argv[i + 1][0] == '-')
				return cli_usage(cli, "--tools needs at least one PATTERN");
			while (i + 1 < argc && argv[i + 1][0] != '-') {
				if (strlen(argv[i + 1]) > 128)
					return cli_usage(cli, "--tools: a pattern is at most 128 bytes");
				json_array_append_new(tools, json_string(argv[++i]));
			}
		} else if (strcmp(a, "--may-approve") == 0) {
			spec.may_approve = 1;
		} else if (a[0] == '-') {
			return cli_usage(cli, "unknown option %.64s", a);
		} else if (!spec.name) {
			spec.name = a;
		} else {
			return cli_usage(cli, "too many arguments");
		}
	}
	if (!spec.name)
		return cli_usage(cli, "token add needs NAME");
	spec.tools = tools;
	rc = tg_registry_token_add(secret, r, &spec, &who);
	if (rc < 0)
		return cli_fail(rc, "token add");
	if (cli->json) {
		_cleanup_json_ json_t *o = json_pack("{s:s, s:s}", "name", spec.name, "token", secret);
		return cli_print_json(o);
	}
	printf("%s\n", secret);
	fprintf(stderr, "toolgate: token %s added; the token above is shown only once "
			"(clients send it as Authorization: Bearer <token>)\n",
		spec.name);
	return TG_EXIT_OK;
}

static int token_list(tg_cli *cli, tg_registry *r)
{
	_cleanup_json_ json_t *list = NULL;
	const json_t *t;
	size_t i;
	int rc = tg_registry_token_list(&list, r);

	if (rc < 0)
		return cli_fail(rc, "token list");
	if (cli->json)
		return cli_print_json(list);
	json_array_foreach(list, i, t) {
		_cleanup_free_ char *tools = NULL;
		const json_t *tl = json_object_get(t, "tools");
		if (json_is_array(tl))
			tools = tg_json_dump(tl);
		printf("%s\tmax_calls=%lld max_creates=%lld tools=%s%s\n",
		       cli_line(json_string_value(json_object_get(t, "name"))),
		       (long long)json_integer_value(json_object_get(t, "max_calls")),
		       (long long)json_integer_value(json_object_get(t, "max_creates")),
		       tools ? cli_line(tools) : "*",
		       json_is_true(json_object_get(t, "may_approve")) ? " may-approve" : "");
	}
	return TG_EXIT_OK;
}

int cmd_token(tg_cli *cli, int argc, char **argv)
{
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	int rc, status;

	if (argc < 2)
		return cli_usage(cli, "needs add, list or revoke");
	if (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "list") != 0 &&
	    strcmp(argv[1], "revoke") != 0)
		return cli_usage(cli, "unknown subcommand %.64s (add, list, revoke)", argv[1]);
	if (strcmp(argv[1], "list") == 0 && argc > 2)
		return cli_usage(cli, "token list takes no arguments");
	if (strcmp(argv[1], "revoke") == 0 && argc != 3)
		return cli_usage(cli, "token revoke needs NAME");
	rc = tg_registry_open_flag(&r, cli->home_flag, 
				   1 | (!strcmp(argv[1], "list") ? TG_REGISTRY_OPEN_READONLY : 0));
	if (rc < 0)
		return cli_fail(rc, "token");
	if (strcmp(argv[1], "add") == 0) {
		status = token_add(cli, r, argc - 1, argv + 1);
	} else if (strcmp(argv[1], "list") == 0) {
		status = token_list(cli, r);
	} else {
		rc = tg_registry_token_revoke(r, argv[2], &who);
		if (rc < 0) {
			status = cli_fail(rc, "token revoke");
		} else {
			status = TG_EXIT_OK;
			if (cli->json)
				status = cli_print_json(json_pack("{s:s, s:b}", "name", argv[2],
								  "revoked", 1));
			else
				printf("token %s revoked\n", cli_line(argv[2]));
		}
	}
	tg_registry_free(r);
	return status;
}
