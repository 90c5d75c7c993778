/*
 * cli/cmd_show.c: `toolgate show NAME[@V]`: one version (the active one, or
 * the newest when none is active) with its status, verdict, commit,
 * capabilities (and the host folder a workspace capability binds), limits
 * (as written and as applied), findings, test results and source.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>
#include <time.h>


int cmd_show(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	_cleanup_free_ char *name = NULL, *schema = NULL, *limits = NULL, *caps = NULL;
	const char *desc;
	tg_registry *r = NULL;
	unsigned v = 0;
	json_t *f, *t;
	size_t i;
	char when[32];
	time_t tt;
	int rc;

	if (argc != 2)
		return cli_usage(cli, "needs NAME or NAME@VERSION");
	rc = tg_registry_parse_ref(&name, &v, argv[1]);
	if (rc < 0)
		return cli_fail(rc, "show");
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "show");
	rc = tg_registry_show(&res, r, name, v);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "show");
	if (cli->json)
		return cli_print_json(res);
	tt = (time_t)json_integer_value(json_object_get(res, "time"));
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&tt));
	schema = tg_json_dump(json_object_get(res, "input_schema"));
	limits = tg_json_dump(json_object_get(res, "limits"));
	caps = tg_json_dump(json_object_get(res, "capabilities"));
	desc = cli_block(json_string_value(json_object_get(res, "description")));
	printf("%s v%lld\nstatus:       %s\nverdict:      %s\ncommit:       %s\n"
	       "content hash: %s\nsubmitted:    %s by %s\ndescription:  %s\n"
	       "input schema: %s\nlimits:       %s\ncapabilities: %s\n",
	       name, (long long)json_integer_value(json_object_get(res, "version")),
	       json_string_value(json_object_get(res, "status")),
	       json_string_value(json_object_get(res, "verdict")),
	       cli_jline(json_object_get(res, "commit")),
	       cli_jline(json_object_get(res, "content_hash")), when,
	       cli_jline(json_object_get(res, "submitter")), desc,
	       schema ? cli_line(schema) : "?", limits ? cli_line(limits) : "?",
	       caps ? cli_line(caps) : "?");
	{
		/* what a run of this version gets (defaults and ceilings applied) */
		json_t *la = json_object_get(res, "limits_applied");
		if (json_is_object(la))
			printf("applied:      timeout %lld ms, memory %lld MiB, output %lld KiB\n",
			       (long long)json_integer_value(json_object_get(la, "timeout_ms")),
			       (long long)json_integer_value(json_object_get(la, "memory_mb")),
			       (long long)json_integer_value(json_object_get(la, "output_kb")));
	}
	{
		/* per tool, not per version: what its runs get now */
		json_t *b = json_object_get(res, "backend");
		const char *src = json_string_value(json_object_get(b, "source"));
		printf("backend:      %s (%s)\n", json_string_value(json_object_get(b, "backend")),
		       !src || !strcmp(src, "home") ? "the home's default, config.json"
		       : !strcmp(src, "tool")	    ? "toolgate backend"
						    : "toolgate backend --weaken: below the home's");
	}
	{
		/* the host folder its workspace capability grants (config.json) */
		json_t *ws = json_object_get(res, "workspace");
		const char *host = json_string_value(json_object_get(ws, "host"));
		if (ws && host)
			printf("workspace:    %s bound at /workspace, %s (the home's config.json)\n",
			       cli_line(host), json_string_value(json_object_get(ws, "access")));
		else if (ws)
			printf("workspace:    none configured: its runs are refused until a person sets "
			       "\"workspace\" in the home's config.json\n");
	}
	if (json_string_length(json_object_get(res, "reason"))) {
		printf("reason:       %s\n", cli_block(json_string_value(json_object_get(res, "reason"))));
	}
	json_array_foreach(json_object_get(res, "findings"), i, f) {
		printf("finding:      [%s] %s: %s (%s line %lld:%lld)\n",
		       json_string_value(json_object_get(f, "severity")),
		       cli_jline(json_object_get(f, "rule")), cli_jline(json_object_get(f, "message")),
		       json_string_value(json_object_get(f, "stage")),
		       (long long)json_integer_value(json_object_get(f, "line")),
		       (long long)json_integer_value(json_object_get(f, "column")));
	}
	json_array_foreach(json_object_get(res, "tests"), i, t) {
		printf("test:         \"%s\": %s (%s)\n", cli_jline(json_object_get(t, "name")),
		       json_is_true(json_object_get(t, "passed")) ? "pass" : "FAIL",
		       cli_jline(json_object_get(t, "detail")));
	}
	cli_print_claims(json_object_get(res, "claims"), "decision:     ");
	/* the source was refused at submission if it held control or bidi
	 * characters; marked visibly anyway (a bidi control as <U+202E>) in case
	 * the store was edited or filled by a pull since */
	printf("--- tool.c\n%s", cli_block(json_string_value(json_object_get(res, "source"))));
	return TG_EXIT_OK;
}
