/*
 * cli/limits.c: what `create`, `call` and `serve` say before running tools
 * when this machine gives them no cgroup memory and pids limits (an ordinary
 * user with nothing delegated, no controllers). The runs then fall back to
 * rlimits: that is said once, on stderr, with what it means; with
 * config.json "require_cgroups": true the command refuses instead (exit 3).
 */
#include "cli.h"
#include "registry/registry.h"
#include "sandbox/sandbox.h"

#include <stdio.h>

int cli_limits_gate(const tg_registry *r, const char *what)
{
	const tg_config *cfg = r ? tg_registry_config(r) : NULL;
	char why[200] = "";

	if (tg_sandbox_cgroups(why, sizeof(why)))
		return 0;
	if (cfg && cfg->require_cgroups) {
		fprintf(stderr,
			"toolgate: %s: no cgroup limits can be applied here (%s) and config.json "
			"sets require_cgroups: refusing to run tools; delegate a cgroup v2 folder "
			"(TOOLGATE_CGROUP, docs/SANDBOX.md) or run `toolgate doctor`\n",
			what, why);
		return TG_EXIT_ENV;
	}
	fprintf(stderr,
		"toolgate: %s: note: no cgroup limits here (%s): memory and process limits fall "
		"back to rlimits (RLIMIT_AS caps address space, not memory in use; "
		"RLIMIT_NPROC counts every process of the sandbox user); see `toolgate doctor`\n",
		what, why);
	return 0;
}
