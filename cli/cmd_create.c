/*
 * cli/cmd_create.c: `toolgate create PATH`: submit a tool (a manifest file
 * or a folder holding tool.json) through the whole pipeline and say the
 * version, the verdict, every finding and every failing test. Exit 0 when
 * the version is active (or pending approval), 1 when it was rejected or
 * failed its tests, 2 for a bad manifest (nothing is recorded then).
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>


/* The shadow runs against the active version (registry/create/shadow.c). */
static void print_shadow(const json_t *sh)
{
	if (!sh)
		return;
	if (json_object_get(sh, "skipped")) {
		printf("  shadow runs against v%lld skipped: %s\n",
		       (long long)json_integer_value(json_object_get(sh, "against_version")),
		       cli_jline(json_object_get(sh, "skipped")));
		return;
	}
	printf("  shadow runs against v%lld on %lld recorded calls: %lld same, %lld differ, "
	       "%lld regressions, %lld fixed (%lld ms)\n",
	       (long long)json_integer_value(json_object_get(sh, "against_version")),
	       (long long)json_integer_value(json_object_get(sh, "samples_run")),
	       (long long)json_integer_value(json_object_get(sh, "same")),
	       (long long)json_integer_value(json_object_get(sh, "differs")),
	       (long long)json_integer_value(json_object_get(sh, "regression")),
	       (long long)json_integer_value(json_object_get(sh, "fixed")),
	       (long long)json_integer_value(json_object_get(sh, "wall_ms")));
}

static void print_text(const json_t *res)
{
	const char *status = json_string_value(json_object_get(res, "status"));
	const char *reason = json_string_value(json_object_get(res, "reason"));
	json_t *f, *t;
	size_t i;

	printf("%s v%lld: %s (verdict %s, commit %.12s)\n",
	       cli_jline(json_object_get(res, "name")),
	       (long long)json_integer_value(json_object_get(res, "version")), status,
	       json_string_value(json_object_get(res, "verdict")),
	       json_string_value(json_object_get(res, "commit")));
	json_array_foreach(json_object_get(res, "findings"), i, f) {
		const char *sym = json_string_value(json_object_get(f, "symbol"));
		const char *rule = cli_jline(json_object_get(f, "rule"));
		const char *msg = cli_jline(json_object_get(f, "message"));
		const char *ssym = sym ? cli_line(sym) : NULL;
		printf("  finding [%s] %s: %s (%s line %lld:%lld%s%s)\n",
		       json_string_value(json_object_get(f, "severity")), rule ? rule : "?",
		       msg ? msg : "?", json_string_value(json_object_get(f, "stage")),
		       (long long)json_integer_value(json_object_get(f, "line")),
		       (long long)json_integer_value(json_object_get(f, "column")),
		       sym ? ", symbol " : "", sym && ssym ? ssym : "");
	}
	json_array_foreach(json_object_get(res, "tests"), i, t) {
		int ok = json_is_true(json_object_get(t, "passed"));
		const char *detail = cli_jline(json_object_get(t, "detail"));
		printf("  test \"%s\": %s%s%s\n", cli_jline(json_object_get(t, "name")),
		       ok ? "pass" : "FAIL", ok ? "" : ": ", ok || !detail ? "" : detail);
	}
	if (reason && reason[0]) {
		printf("  %s\n", cli_line(reason));
	}
	print_shadow(json_object_get(res, "shadow"));
}

int cmd_create(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *manifest = NULL, *res = NULL;
	_cleanup_free_ char *source = NULL;
	tg_registry *r = NULL;
	tg_submission sub = { 0 };
	tg_actor who = { "cli", NULL };
	const char *status;
	size_t len = 0;
	int rc;

	if (argc != 2)
		return cli_usage(cli, "needs exactly one PATH (a manifest file or a folder with tool.json)");
	rc = tg_manifest_load(&manifest, &source, &len, argv[1]);
	if (rc < 0)
		return cli_fail(rc, "create");
	rc = tg_registry_open_flag(&r, cli->home_flag, 1);
	if (rc < 0)
		return cli_fail(rc, "create");
	rc = cli_limits_gate(r, "create");
	if (rc != 0) {
		tg_registry_free(r);
		return rc;
	}
	sub.manifest = manifest;
	sub.source = source;
	sub.source_len = len;
	rc = tg_registry_create(&res, r, &sub, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "create");
	if (cli->json)
		rc = cli_print_json(res);
	else
		print_text(res);
	if (rc != TG_EXIT_OK && cli->json)
		return rc;
	status = json_string_value(json_object_get(res, "status"));
	if (status && (strcmp(status, "rejected") == 0 || strcmp(status, "failed") == 0))
		return TG_EXIT_VERDICT;
	return TG_EXIT_OK;
}
