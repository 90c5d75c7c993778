/*
 * cli/cmd_log.c: `toolgate log [--limit N] [--run ID] [--archive BEFORE]`:
 * the audit log, oldest first (with --limit, the last N entries; with
 * --run, the entries of one one-off run's bridged calls, indented by
 * depth; --archive moves the entries before BEFORE to a file under
 * <home>/audit-archive, leaving a checkpoint entry).
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>
#include <time.h>

int cmd_log(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	uint32_t limit = 0, run = 0;
	const char *archive = NULL;
	json_t *e;
	size_t i;
	int rc, k;

	for (k = 1; k < argc; k++) {
		const char *a = argv[k];
		if (strcmp(a, "--limit") == 0 || strncmp(a, "--limit=", 8) == 0) {
			const char *val = a[7] == '=' ? a + 8 : (k + 1 < argc ? argv[++k] : NULL);
			if (!val || cli_parse_u32(val, &limit) < 0)
				return cli_usage(cli, "--limit needs a number");
		} else if (strcmp(a, "--run") == 0 || strncmp(a, "--run=", 6) == 0) {
			const char *val = a[5] == '=' ? a + 6 : (k + 1 < argc ? argv[++k] : NULL);
			if (!val || cli_parse_u32(val, &run) < 0 || run == 0)
				return cli_usage(cli, "--run needs a run ID");
		} else if (strcmp(a, "--archive") == 0 || strncmp(a, "--archive=", 10) == 0) {
			archive = a[9] == '=' ? a + 10 : (k + 1 < argc ? argv[++k] : NULL);
			if (!archive || !archive[0])
				return cli_usage(cli, "--archive needs BEFORE (an entry number or "
						      "a date YYYY-MM-DD)");
		} else {
			return cli_usage(cli, "unexpected argument %.64s", a);
		}
	}
	if (archive && (limit || run))
		return cli_usage(cli, "--archive goes alone");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "log");
	if (archive) {
		/* retention: old entries to a file that still verifies */
		tg_actor who = { "cli", NULL };
		rc = tg_registry_archive(&res, r, archive, &who);
		tg_registry_free(r);
		if (rc < 0)
			return cli_fail(rc, "log");
		if (cli->json)
			return cli_print_json(res);
		printf("archived entries %lld..%lld (%lld) to %s (sha256 %s); checkpoint entry "
		       "%lld\n",
		       (long long)json_integer_value(json_object_get(res, "from")),
		       (long long)json_integer_value(json_object_get(res, "through")),
		       (long long)json_integer_value(json_object_get(res, "entries")),
		       cli_jline(json_object_get(res, "file")),
		       cli_jline(json_object_get(res, "sha256")),
		       (long long)json_integer_value(json_object_get(res, "checkpoint")));
		return TG_EXIT_OK;
	}
	if (run) {
		/* one run's bridged calls, their callees' and approvals (cmd_run.c) */
		rc = tg_registry_show_run(&res, r, run);
		tg_registry_free(r);
		if (rc < 0)
			return cli_fail(rc, "log");
		if (cli->json)
			return cli_print_json(json_object_get(res, "entries"));
		cli_print_run_entries(json_object_get(res, "entries"));
		return TG_EXIT_OK;
	}
	rc = tg_registry_log(&res, r, limit);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "log");
	if (cli->json)
		return cli_print_json(res);
	json_array_foreach(res, i, e) {
		_cleanup_free_ char *det = tg_json_dump(json_object_get(e, "details"));
		time_t tt = (time_t)json_integer_value(json_object_get(e, "time"));
		const char *tool = json_string_value(json_object_get(e, "tool"));
		char when[32];
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime(&tt));
		printf("%6lld %s UTC %-8s %-16s %-20s %s%s\n",
		       (long long)json_integer_value(json_object_get(e, "seq")), when,
		       cli_jline(json_object_get(e, "actor")),
		       cli_jline(json_object_get(e, "event")), tool ? cli_line(tool) : "-",
		       det ? cli_line(det) : "",
		       json_is_true(json_object_get(e, "unfinished"))
			       ? " UNFINISHED (no outcome recorded: still running, or its "
				 "process died)"
			       : "");
	}
	return TG_EXIT_OK;
}
