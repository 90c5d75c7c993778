/*
 * cli/cmd_show_run.c: `toolgate show-run ID`: what a one-off run
 * (toolgate run, run_program) ran: status, hashes, arguments, the allowed
 * calls, its error, the analysis findings, the calls it made as a tree and
 * its source. Every string of agent or tool origin (source, findings,
 * arguments, the program's stderr or build log, callee and caller names,
 * audit details) is printed through cli_line/cli_block (cli/text.c), so no
 * terminal control reaches the screen raw.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_show_run(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	_cleanup_free_ char *args = NULL, *calls = NULL, *err = NULL;
	const char *e, *bk;
	tg_registry *r = NULL;
	uint32_t id;
	json_t *f;
	size_t i;
	int rc;

	if (argc != 2 || cli_parse_u32(argv[1], &id) < 0)
		return cli_usage(cli, "needs a run ID");
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "show-run");
	rc = tg_registry_show_run(&res, r, id);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "show-run");
	if (cli->json)
		return cli_print_json(res);
	/* the sandbox backend the program ran under (absent: it did not run) */
	bk = json_string_value(json_object_get(json_object_get(res, "outcome"), "backend"));
	args = tg_json_dump(json_object_get(res, "args"));
	calls = tg_json_dump(json_object_get(res, "calls"));
	printf("run %u: %s, %lld tool calls, %lld ms, by %s%s%s\nprogram sha256 %s\n"
	       "report sha256  %s\nargs  %s\ncalls %s\n",
	       id, cli_jline(json_object_get(res, "status")),
	       (long long)json_integer_value(json_object_get(res, "tool_calls")),
	       (long long)json_integer_value(json_object_get(res, "wall_ms")),
	       cli_jline(json_object_get(res, "actor")), bk ? ", backend " : "", bk ? bk : "",
	       cli_jline(json_object_get(res, "program_sha256")),
	       cli_jline(json_object_get(res, "report_sha256")), args ? cli_line(args) : "",
	       calls ? cli_line(calls) : "");
	/* the program's stderr, or the build log: one line, like run prints it */
	e = json_string_value(json_object_get(json_object_get(res, "outcome"), "error"));
	if (e && (err = strdup(e))) {
		cli_one_line(err);
		printf("error %s\n", cli_line(err));
	}
	printf("findings:\n");
	json_array_foreach(json_object_get(json_object_get(res, "report"), "findings"), i, f) {
		printf("  %lld:%lld [%s] %s\n", (long long)json_integer_value(json_object_get(f, "line")),
		       (long long)json_integer_value(json_object_get(f, "column")),
		       cli_jline(json_object_get(f, "rule")), cli_jline(json_object_get(f, "message")));
	}
	printf("calls made:\n");
	cli_print_run_entries(json_object_get(res, "entries"));
	/* nobody reviewed this source: a bidi control in it shows as <U+202E> */
	printf("source:\n%s\n", cli_block(json_string_value(json_object_get(res, "source"))));
	return TG_EXIT_OK;
}
