/*
 * cli/cmd_run.c: `toolgate run FILE.c [ARGS_JSON|-] [--calls NAME,...]
 * [--max-tool-calls N] [--timeout-ms N]`: vet, build and run one program
 * once with the tool bridge, never registered (docs/BRIDGE.md). Its result
 * goes alone to stdout (exit 0); a rejection or a failed run prints why on
 * stderr (exit 1). The run is recorded: stderr names its id, and
 * `toolgate show-run ID` (cli/cmd_show_run.c) shows the source, the report
 * and its calls. Every string of agent or tool origin (findings, the
 * program's stderr or build log) is printed through cli_line (cli/text.c),
 * so no terminal control reaches the screen raw.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>
#include <time.h>

#define ARGS_MAX (1u << 20)

static const char *opt_value(int argc, char **argv, int *k, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*k];

	if (strncmp(a, name, n) == 0 && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, name) == 0 && *k + 1 < argc)
		return argv[++*k];
	return NULL;
}

static int split_calls(json_t *calls, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 0 || n > 80)
			return -1;
		if (json_array_append_new(calls, json_stringn(p, n)) < 0)
			return -1;
		p += n;
		if (*p == ',')
			p++;
	}
	return json_array_size(calls) ? 0 : -1;
}

int cmd_run(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *args = NULL, *res = NULL, *calls = json_array(),
			      *limits = json_object();
	_cleanup_free_ char *text = NULL, *src = NULL;
	const char *file = NULL, *argtext = NULL, *status;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	tg_json_limits lim = { ARGS_MAX, 64 };
	tg_program p = { 0 };
	size_t len = 0, slen = 0;
	int rc, k;

	if (!calls || !limits)
		return cli_fail(tg_error_set(TG_ERR_NOMEM, "out of memory"), "run");
	for (k = 1; k < argc; k++) {
		const char *a = argv[k], *v;
		uint32_t n;
		if ((v = opt_value(argc, argv, &k, "--calls"))) {
			if (split_calls(calls, v) < 0)
				return cli_usage(cli, "--calls needs NAME[,NAME...]");
		} else if ((v = opt_value(argc, argv, &k, "--max-tool-calls"))) {
			if (cli_parse_u32(v, &n) < 0)
				return cli_usage(cli, "--max-tool-calls needs a number");
			json_object_set_new(limits, "max_tool_calls", json_integer(n));
		} else if ((v = opt_value(argc, argv, &k, "--timeout-ms"))) {
			if (cli_parse_u32(v, &n) < 0)
				return cli_usage(cli, "--timeout-ms needs a number");
			json_object_set_new(limits, "timeout_ms", json_integer(n));
		} else if (a[0] == '-' && a[1] == '-') {
			return cli_usage(cli, "unknown option %.64s", a);
		} else if (!file) {
			file = a;
		} else if (!argtext) {
			argtext = a;
		} else {
			return cli_usage(cli, "unexpected argument %.64s", a);
		}
	}
	if (!file)
		return cli_usage(cli, "needs FILE.c");
	if (argtext && strcmp(argtext, "-") == 0) {
		rc = tg_fd_read_all(&text, &len, STDIN_FILENO, ARGS_MAX);
		if (rc < 0)
			return cli_fail(rc, "run: arguments");
		rc = tg_json_parse(&args, text, len, &lim);
	} else if (argtext) {
		rc = tg_json_parse(&args, argtext, strlen(argtext), &lim);
	} else {
		args = json_object();
		rc = args ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc < 0)
		return cli_fail(rc, "run: arguments");
	if (!json_is_object(args))
		return cli_fail(tg_error_set(TG_ERR_INVALID, "must be a JSON object"), "run: arguments");
	rc = tg_file_read(&src, &slen, file, 256u * 1024u);
	if (rc < 0)
		return cli_fail(rc == TG_ERR_IO ? TG_ERR_INVALID : rc, "run: source");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "run");
	rc = cli_limits_gate(r, "run");
	if (rc != 0) {
		tg_registry_free(r);
		return rc;
	}
	p.source = src;
	p.source_len = slen;
	p.args = args;
	p.calls = json_array_size(calls) ? calls : NULL;
	p.limits = json_object_size(limits) ? limits : NULL;
	rc = tg_registry_run_program(&res, r, &p, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "run");
	status = json_string_value(json_object_get(res, "status"));
	if (cli->json) {
		rc = cli_print_json(res);
		if (rc != TG_EXIT_OK)
			return rc;
	} else if (strcmp(status, "ok") == 0) {
		if (tg_json_print(stdout, json_object_get(res, "result"), 0) < 0)
			return cli_fail(tg_error_last()->code, "run");
	} else {
		const char *err = json_string_value(json_object_get(res, "error"));
		_cleanup_free_ char *msg = err ? strdup(err) : NULL;
		json_t *f;
		size_t i;
		json_array_foreach(json_object_get(res, "findings"), i, f) {
			fprintf(stderr, "%lld:%lld: [%s] %s\n",
				(long long)json_integer_value(json_object_get(f, "line")),
				(long long)json_integer_value(json_object_get(f, "column")),
				cli_jline(json_object_get(f, "rule")),
				cli_jline(json_object_get(f, "message")));
		}
		if (msg)
			cli_one_line(msg);
		fprintf(stderr, "toolgate: run: %s: %s\n", cli_line(status), cli_line(msg));
	}
	if (!cli->json)
		fprintf(stderr, "toolgate: run: recorded as run %lld (toolgate show-run %lld)\n",
			(long long)json_integer_value(json_object_get(res, "run")),
			(long long)json_integer_value(json_object_get(res, "run")));
	return strcmp(status, "ok") == 0 ? TG_EXIT_OK : TG_EXIT_VERDICT;
}
