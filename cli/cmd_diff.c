/*
 * cli/cmd_diff.c: `toolgate diff NAME V1 V2`: the unified diff between two
 * versions: the source first, then the manifest, the test results (without
 * timing) and the analysis (store/diff.c). With --behaviour: the shadow
 * report of V2 against V1 (registry/create/shadow.c), per recorded call
 * same / differs (the paths, and both results when short) / regression /
 * fixed, and the noise fields ignored.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

static int parse_version(const char *s, unsigned *out)
{
	uint32_t v;
	if (s[0] == 'v')
		s++;
	if (cli_parse_u32(s, &v) < 0 || v == 0)
		return -1;
	*out = v;
	return 0;
}

/* The case of sample id in the report, or NULL (a "same" sample). */
static const json_t *case_of(const json_t *rep, json_int_t id)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(rep, "cases"), i, c) {
		if (json_integer_value(json_object_get(c, "sample")) == id)
			return c;
	}
	return NULL;
}

/* One sample's line: its kind, then for a case its arguments and the
 * short diff (paths, the two results when short) or the failure. All of it
 * is the tool's or its callers': scrubbed. */
static void print_sample(const json_t *rep, const json_t *one)
{
	json_int_t id = json_integer_value(json_object_get(one, "sample"));
	const char *kind = json_string_value(json_object_get(one, "kind"));
	const json_t *c = case_of(rep, id);
	_cleanup_free_ char *a = NULL, *p = NULL, *o = NULL, *n = NULL;

	printf("  #%lld %s", (long long)id, kind ? kind : "?");
	if (!c) {
		putchar('\n');
		return;
	}
	a = tg_json_dump(json_object_get(c, "args"));
	printf(" on %s", cli_line(a ? a : ""));
	if (json_object_get(c, "paths")) {
		p = tg_json_dump(json_object_get(c, "paths"));
		printf(": %s", cli_line(p ? p : ""));
		if (json_object_get(c, "old") && json_object_get(c, "new")) {
			o = tg_json_dump(json_object_get(c, "old"));
			n = tg_json_dump(json_object_get(c, "new"));
			printf("\n      was %s", cli_line(o ? o : ""));
			printf("\n      now %s", cli_line(n ? n : ""));
		}
	} else {
		printf(": %s: %s", cli_jline(json_object_get(c, "reason")),
		       cli_jline(json_object_get(c, "error")));
	}
	putchar('\n');
}

static int behaviour(tg_cli *cli, const char *name, unsigned v1, unsigned v2)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	const json_t *rep, *one;
	size_t i;
	int rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);

	if (rc < 0)
		return cli_fail(rc, "diff");
	rc = tg_registry_behaviour(&res, r, name, v1, v2);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "diff");
	if (cli->json)
		return cli_print_json(res);
	rep = json_object_get(res, "report");
	if (json_object_get(rep, "skipped")) {
		printf("%s v%u against v%u: shadow runs skipped: %s\n", name, v2, v1,
		       cli_jline(json_object_get(rep, "skipped")));
		return TG_EXIT_OK;
	}
	printf("%s v%u against v%u on %lld recorded calls (promotion \"%s\"; v%u is %s): %lld "
	       "same, %lld differ, %lld regression(s), %lld fixed\n",
	       name, v2, v1, (long long)json_integer_value(json_object_get(rep, "samples_run")),
	       cli_jline(json_object_get(rep, "policy")), v2,
	       cli_jline(json_object_get(res, "status")),
	       (long long)json_integer_value(json_object_get(rep, "same")),
	       (long long)json_integer_value(json_object_get(rep, "differs")),
	       (long long)json_integer_value(json_object_get(rep, "regression")),
	       (long long)json_integer_value(json_object_get(rep, "fixed")));
	if (json_array_size(json_object_get(rep, "noise")) > 0) {
		_cleanup_free_ char *nz = tg_json_dump(json_object_get(rep, "noise"));
		printf("  noise ignored (differed between two runs of v%u): %s\n", v1,
		       cli_line(nz ? nz : ""));
	}
	json_array_foreach(json_object_get(rep, "per_sample"), i, one)
		print_sample(rep, one);
	return TG_EXIT_OK;
}

int cmd_diff(tg_cli *cli, int argc, char **argv)
{
	_cleanup_free_ char *diff = NULL;
	tg_registry *r = NULL;
	const char *pos[3];
	unsigned v1, v2;
	int rc, i, n = 0, beh = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--behaviour") == 0 || strcmp(argv[i], "--behavior") == 0)
			beh = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage(cli, "unknown option %.64s", argv[i]);
		else if (n < 3)
			pos[n++] = argv[i];
		else
			return cli_usage(cli, "needs NAME V1 V2");
	}
	if (n != 3)
		return cli_usage(cli, "needs NAME V1 V2");
	if (parse_version(pos[1], &v1) < 0 || parse_version(pos[2], &v2) < 0)
		return cli_usage(cli, "versions must be positive numbers");
	if (beh)
		return behaviour(cli, pos[0], v1, v2);
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "diff");
	rc = tg_registry_diff(&diff, r, pos[0], v1, v2);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "diff");
	if (cli->json) {
		_cleanup_json_ json_t *j = json_pack("{s:s, s:i, s:i, s:s}", "name", pos[0], "from",
						     (int)v1, "to", (int)v2, "diff", diff);
		if (!j)
			return cli_fail(tg_error_set(TG_ERR_INTERNAL, "diff is not valid UTF-8"), "diff");
		return cli_print_json(j);
	}
	fputs(cli_block(diff), stdout);
	return TG_EXIT_OK;
}
