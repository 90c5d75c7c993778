/*
 * cli/cmd_call.c: `toolgate call NAME [ARGS_JSON|-]`: run the active
 * version. The tool's result, the JSON value it wrote, goes alone to stdout
 * (exit 0); a tool error prints its message on stderr (exit 1); arguments
 * that are not JSON or do not match the input schema exit 2. --json wraps
 * the outcome with the version and timing.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

#define ARGS_MAX (1u << 20)

int cmd_call(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *args = NULL, *res = NULL;
	_cleanup_free_ char *text = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	tg_json_limits lim = { ARGS_MAX, 64 };
	const char *reason;
	size_t len;
	int rc;

	if (argc < 2 || argc > 3)
		return cli_usage(cli, "needs NAME and optionally ARGS_JSON (or - for stdin)");
	if (argc == 3 && strcmp(argv[2], "-") == 0) {
		rc = tg_fd_read_all(&text, &len, STDIN_FILENO, ARGS_MAX);
		if (rc < 0)
			return cli_fail(rc == TG_ERR_LIMIT ? TG_ERR_LIMIT : rc, "call: arguments");
		rc = tg_json_parse(&args, text, len, &lim);
	} else if (argc == 3) {
		rc = tg_json_parse(&args, argv[2], strlen(argv[2]), &lim);
	} else {
		args = json_object();
		rc = args ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc < 0)
		return cli_fail(rc, "call: arguments");
	if (!json_is_object(args))
		return cli_fail(tg_error_set(TG_ERR_INVALID, "must be a JSON object"), "call: arguments");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "call");
	rc = cli_limits_gate(r, "call");
	if (rc != 0) {
		tg_registry_free(r);
		return rc;
	}
	rc = tg_registry_call(&res, r, argv[1], args, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "call");
	reason = json_string_value(json_object_get(res, "reason"));
	if (cli->json) {
		rc = cli_print_json(res);
		if (rc != TG_EXIT_OK)
			return rc;
	} else if (json_is_true(json_object_get(res, "ok"))) {
		if (tg_json_print(stdout, json_object_get(res, "result"), 0) < 0)
			return cli_fail(tg_error_last()->code, "call");
	} else {
		_cleanup_free_ char *msg = strdup(json_string_value(json_object_get(res, "error")) ?: "?");
		/* one line: the tool's own line breaks become spaces; the rest is
		 * scrubbed (cli_line) when printed */
		if (msg) {
			size_t k = strlen(msg);
			while (k > 0 && (msg[k - 1] == '\n' || msg[k - 1] == ' ' || msg[k - 1] == '\t'))
				msg[--k] = '\0';
			for (char *p = msg; *p; p++)
				if (*p == '\n' || *p == '\t')
					*p = ' ';
		}
		fprintf(stderr, "toolgate: call %s: %s\n", cli_line(argv[1]), cli_line(msg));
	}
	if (json_is_true(json_object_get(res, "ok")))
		return TG_EXIT_OK;
	return reason && strcmp(reason, "invalid_args") == 0 ? TG_EXIT_USAGE : TG_EXIT_VERDICT;
}
