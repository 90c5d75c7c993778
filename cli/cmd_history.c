/*
 * cli/cmd_history.c: `toolgate history NAME`: every version with its
 * status, time, verdict and commit and why it is or is not active (the
 * registry's reason; for an inactive version without one, what the events
 * say: superseded by a later version, rolled back, never activated), then
 * every activation, rollback and approval event. "active: none" when no
 * version is active.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>
#include <time.h>

static void fmt_time(char *buf, size_t n, json_int_t t)
{
	time_t tt = (time_t)t;
	strftime(buf, n, "%Y-%m-%d %H:%M:%S", gmtime(&tt));
}

/* Why an inactive version is not active, from the last event that moved the
 * active pointer away from it. */
static void why_inactive(char *buf, size_t n, const json_t *events, json_int_t version)
{
	json_t *e;
	size_t i;
	int was_active = 0;

	snprintf(buf, n, "passed, never activated");
	json_array_foreach(events, i, e) {
		json_int_t to = json_integer_value(json_object_get(e, "version"));
		json_int_t from = json_integer_value(json_object_get(e, "from_version"));
		const char *ev = json_string_value(json_object_get(e, "event"));
		if (to == version) {
			was_active = 1;
			snprintf(buf, n, "was active, no longer");
		} else if (from == version && was_active) {
			if (ev && strcmp(ev, "rollback") == 0)
				snprintf(buf, n, "rolled back to v%lld", (long long)to);
			else if (to == 0 && ev && strcmp(ev, "remove") == 0)
				snprintf(buf, n, "removed (toolgate remove): no version active");
			else if (to == 0)
				snprintf(buf, n, "deactivated (%s)", ev ? ev : "?");
			else
				snprintf(buf, n, "superseded by v%lld", (long long)to);
		}
	}
}

int cmd_history(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	json_t *v, *e;
	size_t i;
	char when[32];
	int rc;

	if (argc != 2)
		return cli_usage(cli, "needs NAME");
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "history");
	rc = tg_registry_history(&res, r, argv[1]);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "history");
	if (cli->json)
		return cli_print_json(res);
	{
		json_int_t active = json_integer_value(json_object_get(res, "active"));
		char act[32] = "none";
		if (active)
			snprintf(act, sizeof(act), "v%lld", (long long)active);
		printf("%s (active: %s)\n", cli_jline(json_object_get(res, "name")), act);
	}
	json_array_foreach(json_object_get(res, "versions"), i, v) {
		const char *reason = json_string_value(json_object_get(v, "reason"));
		const char *status = json_string_value(json_object_get(v, "status"));
		char why[64];
		if (status && strcmp(status, "inactive") == 0) {
			/* the events say why once it was active (the stored reason
			 * may date from before its approval) */
			why_inactive(why, sizeof(why), json_object_get(res, "events"),
				     json_integer_value(json_object_get(v, "version")));
			if (!reason || !reason[0] || strcmp(why, "passed, never activated") != 0)
				reason = why;
		}
		fmt_time(when, sizeof(when), json_integer_value(json_object_get(v, "time")));
		printf("  v%-4lld %-9s %s UTC  verdict %-6s %.12s%s%.160s\n",
		       (long long)json_integer_value(json_object_get(v, "version")),
		       json_string_value(json_object_get(v, "status")), when,
		       json_string_value(json_object_get(v, "verdict")),
		       cli_jline(json_object_get(v, "commit")),
		       reason && reason[0] ? "  " : "", reason ? cli_line(reason) : "");
	}
	if (json_array_size(json_object_get(res, "events")))
		printf("events:\n");
	json_array_foreach(json_object_get(res, "events"), i, e) {
		fmt_time(when, sizeof(when), json_integer_value(json_object_get(e, "time")));
		json_int_t from = json_integer_value(json_object_get(e, "from_version"));
		json_int_t to = json_integer_value(json_object_get(e, "version"));
		char was[32] = "none active before", now[24] = "none active";
		if (from)
			snprintf(was, sizeof(was), "was v%lld", (long long)from);
		if (to)
			snprintf(now, sizeof(now), "v%lld", (long long)to);
		printf("  %s UTC  %-8s %s (%s) by %s\n", when,
		       cli_jline(json_object_get(e, "event")), now, was,
		       cli_jline(json_object_get(e, "actor")));
	}
	/* the tests every later create runs (registry/record/sample_tests.c) */
	if (json_array_size(json_object_get(res, "regression_tests"))) {
		size_t n = json_array_size(json_object_get(res, "regression_tests"));
		printf("tests made of recorded calls, run by every create: %zu (toolgate tests list "
		       "%s)\n", n, cli_jline(json_object_get(res, "name")));
	}
	return TG_EXIT_OK;
}
