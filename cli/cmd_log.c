/*
 * cli/cmd_log.c: `toolgate log [--limit N] [--tool NAME] [--actor TEXT]
 * [--since YYYY-MM-DD|SEQ] [--event NAME] [--run ID] [--archive BEFORE]`:
 * the audit log, oldest first (the filters combine with AND: the tool and
 * event named exactly, the actor containing TEXT, entries from a UTC date
 * or an entry number on; with --limit, the last N entries kept; with
 * --run, the entries of one one-off run's bridged calls, indented by
 * depth; --archive moves the entries before BEFORE to a file under
 * <home>/audit-archive, leaving a checkpoint entry).
 */
#include "cli.h"
#include "registry/registry.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct log_filter {
	const char *tool, *actor, *event, *since;
	int64_t since_seq, since_time;
	int any;
} log_filter;

/* --since: digits = an entry number, YYYY-MM-DD = 00:00 UTC that day. */
static int parse_since(log_filter *f)
{
	const char *s = f->since;
	struct tm tm = { 0 };
	char *end;

	if (s[0] >= '1' && s[0] <= '9' && strspn(s, "0123456789") == strlen(s) && strlen(s) < 16) {
		f->since_seq = strtoll(s, NULL, 10);
		return 0;
	}
	end = strptime(s, "%Y-%m-%d", &tm);
	if (!end || *end || strlen(s) != 10)
		return -1;
	f->since_time = (int64_t)timegm(&tm);
	return 0;
}

static int str_is(const json_t *v, const char *want)
{
	const char *s = json_string_value(v);
	return s && strcmp(s, want) == 0;
}

static int keep(const log_filter *f, const json_t *e)
{
	const char *actor = json_string_value(json_object_get(e, "actor"));
	const char *client = json_string_value(json_object_get(e, "client"));

	if (f->tool && !str_is(json_object_get(e, "tool"), f->tool))
		return 0;
	if (f->event && !str_is(json_object_get(e, "event"), f->event))
		return 0;
	/* --actor matches the actor or, for an MCP session, its client */
	if (f->actor && (!actor || !strstr(actor, f->actor)) &&
	    (!client || !strstr(client, f->actor)))
		return 0;
	if (f->since_seq && json_integer_value(json_object_get(e, "seq")) < f->since_seq)
		return 0;
	if (f->since_time && json_integer_value(json_object_get(e, "time")) < f->since_time)
		return 0;
	return 1;
}

/* The entries f keeps, the last limit of them (0 = all). NULL on no memory. */
static json_t *filtered(const json_t *all, const log_filter *f, uint32_t limit)
{
	json_t *o = json_array(), *e;
	size_t i;

	if (!o)
		return NULL;
	json_array_foreach(all, i, e) {
		if (keep(f, e) && json_array_append(o, e) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	while (limit && json_array_size(o) > limit)
		json_array_remove(o, 0);
	return o;
}

static const char *opt_val(int argc, char **argv, int *k, const char *name)
{
	const char *a = argv[*k];
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == '\0')
		return *k + 1 < argc ? argv[++*k] : "";
	return NULL;
}

int cmd_log(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	uint32_t limit = 0, run = 0;
	const char *archive = NULL, *fv;
	log_filter f = { 0 };
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
		} else if ((fv = opt_val(argc, argv, &k, "--tool"))) {
			if (!(f.tool = fv)[0])
				return cli_usage(cli, "--tool needs a NAME");
		} else if ((fv = opt_val(argc, argv, &k, "--actor"))) {
			if (!(f.actor = fv)[0])
				return cli_usage(cli, "--actor needs a TEXT");
		} else if ((fv = opt_val(argc, argv, &k, "--event"))) {
			if (!(f.event = fv)[0])
				return cli_usage(cli, "--event needs a NAME");
		} else if ((fv = opt_val(argc, argv, &k, "--since"))) {
			f.since = fv;
			if (parse_since(&f) < 0)
				return cli_usage(cli, "--since needs a date YYYY-MM-DD (UTC) or an "
						      "entry number");
		} else {
			return cli_usage(cli, "unexpected argument %.64s", a);
		}
	}
	f.any = f.tool || f.actor || f.event || f.since;
	if (archive && (limit || run || f.any))
		return cli_usage(cli, "--archive goes alone");
	if (run && f.any)
		return cli_usage(cli, "--run takes no filter");
	rc = tg_registry_open_flag(&r, cli->home_flag, archive ? 0 : TG_REGISTRY_OPEN_READONLY);
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
	rc = tg_registry_log(&res, r, f.any ? 0 : limit);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "log");
	if (f.any) {
		json_t *kept = filtered(res, &f, limit);
		if (!kept) {
			tg_error_set(TG_ERR_NOMEM, "out of memory");
			return cli_fail(TG_ERR_NOMEM, "log");
		}
		json_decref(res);
		res = kept;
	}
	if (cli->json)
		return cli_print_json(res);
	json_array_foreach(res, i, e) {
		_cleanup_free_ char *det = tg_json_dump(json_object_get(e, "details"));
		time_t tt = (time_t)json_integer_value(json_object_get(e, "time"));
		const char *tool = json_string_value(json_object_get(e, "tool"));
		char when[32];
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime(&tt));
		const json_t *client = json_object_get(e, "client");
		printf("%6lld %s UTC %-8s %-16s %-20s %s%s%s%s\n",
		       (long long)json_integer_value(json_object_get(e, "seq")), when,
		       cli_jline(json_object_get(e, "actor")),
		       cli_jline(json_object_get(e, "event")), tool ? cli_line(tool) : "-",
		       det ? cli_line(det) : "",
		       /* an MCP session's client (name version), after the
			* columns: the actor column keeps its one-word form */
		       client ? " client: " : "", client ? cli_jline(client) : "",
		       json_is_true(json_object_get(e, "unfinished"))
			       ? " UNFINISHED (no outcome recorded: still running, or its "
				 "process died)"
			       : "");
	}
	return TG_EXIT_OK;
}
