/*
 * cli/cmd_tests.c: `toolgate tests add NAME --from-sample ID`, `tests list
 * NAME`, `tests remove NAME TEST`: the tests a person makes of a tool's
 * recorded calls, which every later create of the tool runs with its
 * manifest's (registry/record/sample_tests.c; docs/REGISTRY.md, "Regression
 * tests from real calls"). A test's arguments and results come from the
 * tool and its callers: printed through the terminal scrubber.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

static void print_test(const json_t *t)
{
	_cleanup_free_ char *a = tg_json_dump(json_object_get(t, "args"));
	_cleanup_free_ char *e = json_object_get(t, "expect")
					 ? tg_json_dump(json_object_get(t, "expect"))
					 : NULL;
	size_t nh = json_object_size(json_object_get(t, "host_results"));
	size_t nt = json_object_size(json_object_get(t, "tool_results"));

	printf("  \"%s\": args %s", cli_jline(json_object_get(t, "name")), cli_line(a ? a : ""));
	printf(" -> %s", e ? cli_line(e) : "an error");
	if (nh + nt)
		printf(" (%zu fixture%s of its bridged calls)", nh + nt, nh + nt == 1 ? "" : "s");
	putchar('\n');
}

static int add(tg_cli *cli, tg_registry *r, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_actor who = { "cli", NULL };
	const char *name = NULL, *id = NULL;
	uint32_t sample = 0;
	int i, rc;

	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--from-sample") == 0 && i + 1 < argc)
			id = argv[++i];
		else if (strncmp(argv[i], "--from-sample=", 14) == 0)
			id = argv[i] + 14;
		else if (argv[i][0] == '-' || name)
			return cli_usage(cli, "add takes NAME --from-sample ID");
		else
			name = argv[i];
	}
	if (!name || !id)
		return cli_usage(cli, "add needs NAME --from-sample ID");
	if (cli_parse_u32(id[0] == '#' ? id + 1 : id, &sample) < 0 || sample == 0)
		return cli_usage(cli, "--from-sample needs a recorded call's id (toolgate samples "
				      "NAME)");
	rc = tg_registry_tests_add(&res, r, name, sample, &who);
	if (rc < 0)
		return cli_fail(rc, "tests add");
	if (cli->json)
		return cli_print_json(res);
	printf("%s: added a test that every later create runs:\n", name);
	print_test(json_object_get(res, "test"));
	return TG_EXIT_OK;
}

static int list(tg_cli *cli, tg_registry *r, const char *name)
{
	_cleanup_json_ json_t *res = NULL;
	const json_t *t;
	size_t i;
	int rc = tg_registry_tests_list(&res, r, name);

	if (rc < 0)
		return cli_fail(rc, "tests list");
	if (cli->json)
		return cli_print_json(res);
	printf("%s: %zu test%s made of recorded calls\n", name,
	       json_array_size(json_object_get(res, "tests")),
	       json_array_size(json_object_get(res, "tests")) == 1 ? "" : "s");
	json_array_foreach(json_object_get(res, "tests"), i, t)
		print_test(json_object_get(t, "test"));
	return TG_EXIT_OK;
}

static int remove_one(tg_cli *cli, tg_registry *r, const char *name, const char *test)
{
	_cleanup_json_ json_t *res = NULL;
	tg_actor who = { "cli", NULL };
	int rc = tg_registry_tests_remove(&res, r, name, test, &who);

	if (rc < 0)
		return cli_fail(rc, "tests remove");
	if (cli->json)
		return cli_print_json(res);
	printf("%s: removed the test \"%s\"\n", name, cli_line(test));
	return TG_EXIT_OK;
}

int cmd_tests(tg_cli *cli, int argc, char **argv)
{
	tg_registry *r = NULL;
	const char *sub = argc >= 2 ? argv[1] : "";
	int rc;

	if (strcmp(sub, "add") != 0 && !(strcmp(sub, "list") == 0 && argc == 3) &&
	    !(strcmp(sub, "remove") == 0 && argc == 4))
		return cli_usage(cli, "needs add NAME --from-sample ID | list NAME | remove NAME "
				      "TEST");
	/* list only reads: it works on a read-only home */
	rc = tg_registry_open_flag(&r, cli->home_flag,
				   strcmp(sub, "list") == 0 ? TG_REGISTRY_OPEN_READONLY : 0);
	if (rc < 0)
		return cli_fail(rc, "tests");
	if (strcmp(sub, "add") == 0)
		rc = add(cli, r, argc, argv);
	else if (strcmp(sub, "list") == 0)
		rc = list(cli, r, argv[2]);
	else
		rc = remove_one(cli, r, argv[2], argv[3]);
	tg_registry_free(r);
	return rc;
}
