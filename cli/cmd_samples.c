/*
 * cli/cmd_samples.c: `toolgate samples NAME` lists the recorded calls of a
 * tool (arguments, result or error, version, wall time; docs/REGISTRY.md,
 * "A new version earns its place"); `toolgate samples purge [NAME]` deletes
 * them, of one tool or of all (audited "samples_purged").
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

static int purge(tg_cli *cli, const char *name)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	int rc = tg_registry_open_flag(&r, cli->home_flag, 0);

	if (rc < 0)
		return cli_fail(rc, "samples purge");
	rc = tg_registry_samples_purge(&res, r, name, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "samples purge");
	if (cli->json)
		return cli_print_json(res);
	printf("deleted %lld recorded call%s of %s\n",
	       (long long)json_integer_value(json_object_get(res, "deleted")),
	       json_integer_value(json_object_get(res, "deleted")) == 1 ? "" : "s",
	       name ? name : "every tool");
	return TG_EXIT_OK;
}

static void print_one(const json_t *s)
{
	_cleanup_free_ char *a = tg_json_dump(json_object_get(s, "args"));
	_cleanup_free_ char *v = json_is_true(json_object_get(s, "ok"))
					 ? tg_json_dump(json_object_get(s, "result"))
					 : NULL;
	_cleanup_free_ char *sa = tg_registry_scrub(a ? a : "");
	_cleanup_free_ char *sv = tg_registry_scrub(
		v ? v : json_string_value(json_object_get(s, "error")) ? json_string_value(json_object_get(s, "error")) : "");

	size_t nj = json_array_size(json_object_get(s, "journal"));

	printf("#%lld v%lld %lld ms %s %s -> %s",
	       (long long)json_integer_value(json_object_get(s, "id")),
	       (long long)json_integer_value(json_object_get(s, "version")),
	       (long long)json_integer_value(json_object_get(s, "wall_ms")),
	       v ? "ok" : json_string_value(json_object_get(s, "reason")), sa ? sa : "",
	       sv ? sv : "");
	/* the replies of its bridged calls, kept for shadow runs */
	if (nj)
		printf(" (%zu bridged call%s recorded)", nj, nj == 1 ? "" : "s");
	putchar('\n');
}

int cmd_samples(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	const json_t *list, *s;
	size_t i;
	int rc;

	if (argc >= 2 && strcmp(argv[1], "purge") == 0) {
		if (argc > 3)
			return cli_usage(cli, "purge takes at most one NAME");
		return purge(cli, argc == 3 ? argv[2] : NULL);
	}
	if (argc != 2 || argv[1][0] == '-')
		return cli_usage(cli, "needs NAME (or purge [NAME])");
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "samples");
	rc = tg_registry_samples(&res, r, argv[1]);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "samples");
	if (cli->json)
		return cli_print_json(res);
	list = json_object_get(res, "samples");
	printf("%s: %zu recorded call%s (keeps the last %lld%s)\n", argv[1],
	       json_array_size(list), json_array_size(list) == 1 ? "" : "s",
	       (long long)json_integer_value(json_object_get(res, "max_calls")),
	       json_is_true(json_object_get(res, "recording")) ? "" : "; recording is off");
	json_array_foreach(list, i, s)
		print_one(s);
	return TG_EXIT_OK;
}
