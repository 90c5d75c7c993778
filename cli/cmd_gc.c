/*
 * cli/cmd_gc.c: `toolgate gc`: trim the build cache to its budget
 * (cache_budget_mb) and pack the store's loose objects and refs; the
 * history itself is untouched. Prints what each step did, or the registry's
 * result as one JSON document with --json.
 */
#include "cli.h"
#include "registry/registry.h"

int cmd_gc(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const json_t *st;
	int rc;

	(void)argv;
	if (argc > 1)
		return cli_usage(cli, "takes no arguments");
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "gc");
	rc = tg_registry_gc(&res, r, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "gc");
	if (cli->json)
		return cli_print_json(res);
	st = json_object_get(res, "cache");
	{
		char a[32], b[32], c[32];
		cli_mib(a, sizeof(a), json_integer_value(json_object_get(st, "bytes_before")));
		cli_mib(b, sizeof(b), json_integer_value(json_object_get(st, "bytes_after")));
		cli_mib(c, sizeof(c), json_integer_value(json_object_get(st, "budget_bytes")));
		long long kept = json_integer_value(json_object_get(st, "kept_in_use"));
		if (json_integer_value(json_object_get(st, "evicted")) > 0)
			printf("cache: evicted %lld builds (%lld of active versions): %s -> %s, "
			       "budget %s\n",
			       (long long)json_integer_value(json_object_get(st, "evicted")),
			       (long long)json_integer_value(json_object_get(st, "evicted_active")), a,
			       b, c);
		else if (!kept)
			printf("cache: %s, within its budget (%s)\n", a,
			       json_integer_value(json_object_get(st, "budget_bytes")) > 0
				       ? c
				       : "cache_budget_mb: unlimited");
		if (kept)
			printf("cache: %s over its budget of %s: %lld builds kept, in use or used in the "
			       "last 10 minutes\n",
			       b, c, kept);
	}
	st = json_object_get(res, "store");
	if (json_is_true(json_object_get(st, "busy"))) {
		printf("store: another process is packing it; nothing done\n");
		return TG_EXIT_OK;
	}
	if (json_integer_value(json_object_get(st, "loose_refs_before")) >
	    json_integer_value(json_object_get(st, "loose_refs_after")))
		printf("store: packed refs; loose ref files %lld -> %lld\n",
		       (long long)json_integer_value(json_object_get(st, "loose_refs_before")),
		       (long long)json_integer_value(json_object_get(st, "loose_refs_after")));
	if (json_integer_value(json_object_get(st, "objects_packed")) == 0) {
		printf("store: nothing to pack (%lld loose objects, %lld packs)\n",
		       (long long)json_integer_value(json_object_get(st, "loose_before")),
		       (long long)json_integer_value(json_object_get(st, "packs_before")));
		return TG_EXIT_OK;
	}
	printf("store: packed %lld objects into %s; loose objects %lld -> %lld, packs %lld -> "
	       "%lld\n",
	       (long long)json_integer_value(json_object_get(st, "objects_packed")),
	       cli_jline(json_object_get(st, "pack")),
	       (long long)json_integer_value(json_object_get(st, "loose_before")),
	       (long long)json_integer_value(json_object_get(st, "loose_after")),
	       (long long)json_integer_value(json_object_get(st, "packs_before")),
	       (long long)json_integer_value(json_object_get(st, "packs_after")));
	return TG_EXIT_OK;
}
