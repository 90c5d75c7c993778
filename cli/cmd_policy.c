/*
 * cli/cmd_policy.c: `toolgate policy [--json] [--policy FILE]`: print the
 * effective analysis policy (tg_policy_effective): the allowed headers, the
 * allowed symbols, builtins and attributes, the functions allowed under
 * conditions, and each rule with its severity and the hint its findings
 * carry. The same document is the MCP resource toolgate://policy. Exit 0, or
 * 2 for a bad policy file.
 */
#include "cli.h"
#include "analyzer/analyzer.h"

#include <string.h>

/* Names wrapped at 78 columns, indented by two spaces. */
static void print_names(const json_t *arr)
{
	size_t i, col = 0;
	json_t *v;

	json_array_foreach(arr, i, v) {
		const char *s = cli_jline(v);
		size_t n = strlen(s);
		if (col && col + 1 + n > 78) {
			printf("\n");
			col = 0;
		}
		printf("%s%s", col ? " " : "  ", s);
		col += n + (col ? 1 : 2);
	}
	if (col)
		printf("\n");
}

static void print_text(const json_t *doc)
{
	const char *key;
	json_t *v;
	size_t i;

	printf("Headers a tool may include:\n");
	print_names(json_object_get(doc, "headers"));
	printf("\nFunctions and variables a tool may use (%zu):\n",
	       json_array_size(json_object_get(doc, "allow")));
	print_names(json_object_get(doc, "allow"));
	printf("\nAllowed under conditions:\n");
	json_object_foreach(json_object_get(doc, "checked"), key, v)
		printf("  %s: %s\n", cli_line(key), cli_jline(v));
	printf("\nBuiltins:\n");
	print_names(json_object_get(doc, "builtins"));
	printf("\nAttributes:\n");
	print_names(json_object_get(doc, "attributes"));
	if (json_array_size(json_object_get(doc, "deny"))) {
		printf("\nRemoved by this policy:\n");
		print_names(json_object_get(doc, "deny"));
	}
	printf("\nRules (severity: what; hint):\n");
	json_array_foreach(json_object_get(doc, "rules"), i, v) {
		printf("  %-20s %-7s %s\n", cli_jline(json_object_get(v, "id")),
		       cli_jline(json_object_get(v, "severity")),
		       cli_jline(json_object_get(v, "summary")));
		if (json_is_string(json_object_get(v, "hint")))
			printf("  %-28s hint: %s\n", "", cli_jline(json_object_get(v, "hint")));
	}
}

int cmd_policy(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *doc = NULL;
	const char *policy_flag = NULL;
	tg_policy *policy = NULL;
	int json = cli->json, i, r;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (strcmp(a, "--policy") == 0) {
			if (i + 1 >= argc)
				return cli_usage(cli, "%s needs a value", a);
			policy_flag = argv[++i];
		} else if (strncmp(a, "--policy=", 9) == 0) {
			policy_flag = a + 9;
		} else {
			return cli_usage(cli, "unexpected argument %.64s", a);
		}
	}
	r = cli_load_policy(cli, &policy, policy_flag);
	if (r < 0)
		return cli_fail(r == TG_ERR_NOMEM ? r : TG_ERR_INVALID, "policy");
	r = tg_policy_effective(&doc, policy);
	tg_policy_free(policy);
	if (r < 0)
		return cli_fail(r, "policy");
	if (json)
		return cli_print_json(doc);
	print_text(doc);
	return 0;
}
