/*
 * cli/cmd_show.c: `toolgate show NAME[@V]`: one version (the active one, or
 * the newest when none is active) with its status, verdict, commit,
 * capabilities, limits, findings, test results and source.
 */
#include "cli.h"
#include "registry/registry.h"

#include <time.h>

/* Text the agent or the compiler produced, made safe for a terminal. */
#define SAFE(j) tg_registry_scrub(json_string_value(j))

int cmd_show(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	_cleanup_free_ char *name = NULL, *schema = NULL, *limits = NULL, *caps = NULL;
	_cleanup_free_ char *src = NULL, *desc = NULL;
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
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
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
	desc = SAFE(json_object_get(res, "description"));
	printf("%s v%lld\nstatus:       %s\nverdict:      %s\ncommit:       %s\n"
	       "content hash: %s\nsubmitted:    %s by %s\ndescription:  %s\n"
	       "input schema: %s\nlimits:       %s\ncapabilities: %s\n",
	       name, (long long)json_integer_value(json_object_get(res, "version")),
	       json_string_value(json_object_get(res, "status")),
	       json_string_value(json_object_get(res, "verdict")),
	       json_string_value(json_object_get(res, "commit")),
	       json_string_value(json_object_get(res, "content_hash")), when,
	       json_string_value(json_object_get(res, "submitter")),
	       desc ? desc : "?", schema ? schema : "?",
	       limits ? limits : "?", caps ? caps : "?");
	if (json_string_length(json_object_get(res, "reason"))) {
		_cleanup_free_ char *sr = SAFE(json_object_get(res, "reason"));
		printf("reason:       %s\n", sr ? sr : "?");
	}
	json_array_foreach(json_object_get(res, "findings"), i, f) {
		_cleanup_free_ char *rule = SAFE(json_object_get(f, "rule"));
		_cleanup_free_ char *msg = SAFE(json_object_get(f, "message"));
		printf("finding:      [%s] %s: %s (%s line %lld:%lld)\n",
		       json_string_value(json_object_get(f, "severity")), rule ? rule : "?",
		       msg ? msg : "?", json_string_value(json_object_get(f, "stage")),
		       (long long)json_integer_value(json_object_get(f, "line")),
		       (long long)json_integer_value(json_object_get(f, "column")));
	}
	json_array_foreach(json_object_get(res, "tests"), i, t) {
		_cleanup_free_ char *detail = SAFE(json_object_get(t, "detail"));
		printf("test:         \"%s\": %s (%s)\n", json_string_value(json_object_get(t, "name")),
		       json_is_true(json_object_get(t, "passed")) ? "pass" : "FAIL",
		       detail ? detail : "?");
	}
	/* the source was refused at submission if it held control or bidi
	 * characters; scrubbed anyway in case the store was edited since */
	src = SAFE(json_object_get(res, "source"));
	printf("--- tool.c\n%s", src ? src : "?");
	return TG_EXIT_OK;
}
