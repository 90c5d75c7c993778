/*
 * cli/cmd_diff.c: `toolgate diff NAME V1 V2`: the unified diff between two
 * versions: the source first, then the manifest, the test results (without
 * timing) and the analysis (store/diff.c).
 */
#include "cli.h"
#include "registry/registry.h"

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

int cmd_diff(tg_cli *cli, int argc, char **argv)
{
	_cleanup_free_ char *diff = NULL;
	tg_registry *r = NULL;
	unsigned v1, v2;
	int rc;

	if (argc != 4)
		return cli_usage(cli, "needs NAME V1 V2");
	if (parse_version(argv[2], &v1) < 0 || parse_version(argv[3], &v2) < 0)
		return cli_usage(cli, "versions must be positive numbers");
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "diff");
	rc = tg_registry_diff(&diff, r, argv[1], v1, v2);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "diff");
	if (cli->json) {
		_cleanup_json_ json_t *j = json_pack("{s:s, s:i, s:i, s:s}", "name", argv[1], "from",
						     (int)v1, "to", (int)v2, "diff", diff);
		if (!j)
			return cli_fail(tg_error_set(TG_ERR_INTERNAL, "diff is not valid UTF-8"), "diff");
		return cli_print_json(j);
	}
	fputs(cli_block(diff), stdout);
	return TG_EXIT_OK;
}
