/*
 * cli/policy_load.c: the analysis policy that check, policy and serve use:
 * --policy FILE when given (it must exist), else <home>/policy.json when it
 * exists, else the built-in default (docs/POLICY.md).
 */
#include "cli.h"
#include "analyzer/analyzer.h"

#include <errno.h>
#include <sys/stat.h>

int cli_load_policy(const tg_cli *cli, tg_policy **out, const char *flag)
{
	_cleanup_free_ char *home = NULL, *path = NULL;

	if (flag) {
		struct stat st;
		if (stat(flag, &st) < 0)
			return tg_error_errno(TG_ERR_INVALID, errno, "%s", flag);
		return tg_policy_load(out, flag);
	}
	if (cli_home(cli, &home) < 0)
		return tg_policy_default(out);
	path = tg_path_join(home, "policy.json");
	if (!path)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return tg_policy_load(out, path);
}
