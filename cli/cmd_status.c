/*
 * cli/cmd_status.c: `toolgate status`: the home's use against each quota
 * (docs/CONFIG.md, "Quotas"): bytes of store and cache, the largest cached
 * binary, the most rejected submissions of one tool in the last hour, the
 * cache against its budget, the store's loose objects against the packing
 * threshold, and an unacknowledged rebuild; before them, the overview:
 * tools and active versions, pending approvals (count and the first few),
 * rejections and calls of the last 24 hours, the session budget defaults.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

static json_int_t num(const json_t *o, const char *a, const char *b)
{
	return json_integer_value(json_object_get(json_object_get(o, a), b));
}

/* "of 1024.0 MiB (quota_home_mb)" or "(quota_home_mb: unlimited)" */
static void limit_text(char *buf, size_t n, json_int_t v, const char *key)
{
	char m[32];

	if (v <= 0) {
		snprintf(buf, n, "(%s: unlimited)", key);
		return;
	}
	cli_mib(m, sizeof(m), v);
	snprintf(buf, n, "of %s (%s)", m, key);
}

/* The recent rejections, one a line with the whole reason (scrubbed, on
 * one line): a reason cut short hid what to fix (issue 29). */
static void print_rejects(const json_t *arr, json_int_t count)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		const char *reason = json_string_value(json_object_get(v, "reason"));
		printf("          %s v%lld: %s\n", cli_jline(json_object_get(v, "name")),
		       (long long)json_integer_value(json_object_get(v, "version")),
		       reason && reason[0] ? cli_line(reason) : "(no reason recorded)");
	}
	if ((json_int_t)json_array_size(arr) < count)
		printf("          ... and %lld more (toolgate list --json, toolgate history NAME)\n",
		       (long long)(count - (json_int_t)json_array_size(arr)));
}

/* "name v3" entries of arr, comma-separated, after the count. */
static void print_versions(const json_t *arr, json_int_t count)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		printf("%s%s v%lld", i ? ", " : ": ", cli_jline(json_object_get(v, "name")),
		       (long long)json_integer_value(json_object_get(v, "version")));
	}
	if ((json_int_t)json_array_size(arr) < count)
		printf(", ...");
	printf("\n");
}

static void print_overview(const json_t *res)
{
	json_int_t n;
	uint32_t calls, creates;

	printf("tools     %lld, %lld with an active version\n", (long long)num(res, "tools", "total"),
	       (long long)num(res, "tools", "active"));
	n = num(res, "pending", "count");
	printf("pending   %lld version%s awaiting approval", (long long)n, n == 1 ? "" : "s");
	if (n)
		print_versions(json_object_get(json_object_get(res, "pending"), "first"), n);
	else
		printf("\n");
	n = num(res, "rejections_24h", "count");
	printf("rejects   %lld in the last 24 hours%s\n", (long long)n, n ? ":" : "");
	if (n)
		print_rejects(json_object_get(json_object_get(res, "rejections_24h"), "recent"), n);
	printf("calls     %lld in the last 24 hours\n", (long long)num(res, "calls_24h", "count"));
	/* active tools by the sandbox backend their calls get */
	printf("backend   home default %s (config.json); active tools: %lld gvisor (%lld by "
	       "toolgate backend), %lld native (%lld by --weaken)\n",
	       json_string_value(json_object_get(json_object_get(res, "backends"), "home")),
	       (long long)num(res, "backends", "gvisor"),
	       (long long)num(res, "backends", "gvisor_by_tool"),
	       (long long)num(res, "backends", "native"),
	       (long long)num(res, "backends", "native_exceptions"));
	calls = (uint32_t)num(res, "session_defaults", "max_calls");
	creates = (uint32_t)num(res, "session_defaults", "max_creates");
	printf("sessions  budget per MCP session: ");
	if (calls)
		printf("%u calls, ", calls);
	else
		printf("calls unlimited, ");
	if (creates)
		printf("%u creates", creates);
	else
		printf("creates unlimited");
	printf("%s (config.json)\n",
	       json_is_true(json_object_get(json_object_get(res, "session_defaults"),
					    "hide_write_tools"))
		       ? ", write tools hidden"
		       : "");
}

int cmd_status(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	char a[32], b[32], c[32], dbs[32], lim[96];
	const char *tool;
	int rc;

	(void)argv;
	if (argc > 1)
		return cli_usage(cli, "takes no arguments");
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "status");
	rc = tg_registry_status(&res, r);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "status");
	if (cli->json)
		return cli_print_json(res);
	print_overview(res);
	cli_mib(a, sizeof(a), num(res, "home", "used_bytes"));
	cli_mib(b, sizeof(b), num(res, "home", "store_bytes"));
	cli_mib(c, sizeof(c), num(res, "home", "cache_bytes"));
	cli_mib(dbs, sizeof(dbs), num(res, "home", "db_bytes"));
	limit_text(lim, sizeof(lim), num(res, "home", "quota_bytes"), "quota_home_mb");
	printf("home      %s %s: store %s, cache %s, registry.db %s\n", a, lim, b, c, dbs);
	{
		const char *top = json_string_value(json_object_get(json_object_get(res,
										  "tool_bytes"),
								  "tool"));
		cli_mib(a, sizeof(a), num(res, "tool_bytes", "used_bytes"));
		limit_text(lim, sizeof(lim), num(res, "tool_bytes", "quota_bytes"), "quota_tool_mb");
		printf("per tool  largest %s%s%s %s\n", a, top ? " for " : "",
		       top ? cli_line(top) : "", lim);
		top = json_string_value(json_object_get(json_object_get(res, "session_bytes"),
							"session"));
		cli_mib(a, sizeof(a), num(res, "session_bytes", "used_bytes"));
		limit_text(lim, sizeof(lim), num(res, "session_bytes", "quota_bytes"),
			   "quota_session_mb");
		printf("session   largest %s%s%s %s\n", a, top ? " for " : "",
		       top ? cli_line(top) : "", lim);
	}
	cli_mib(a, sizeof(a), num(res, "binary", "largest_bytes"));
	limit_text(lim, sizeof(lim), num(res, "binary", "limit_bytes"), "max_binary_mb");
	printf("binary    largest cached %s %s\n", a, lim);
	tool = json_string_value(json_object_get(json_object_get(res, "rejected_per_tool_hour"),
						 "tool"));
	if (num(res, "rejected_per_tool_hour", "limit") > 0)
		snprintf(lim, sizeof(lim), "of %lld (max_rejected_per_tool_hour)",
			 (long long)num(res, "rejected_per_tool_hour", "limit"));
	else
		snprintf(lim, sizeof(lim), "(max_rejected_per_tool_hour: unlimited)");
	printf("rejected  %lld in the last hour%s%s %s\n",
	       (long long)num(res, "rejected_per_tool_hour", "highest"), tool ? " for " : "",
	       tool ? cli_line(tool) : "", lim);
	cli_mib(a, sizeof(a), num(res, "cache", "bytes"));
	limit_text(lim, sizeof(lim), num(res, "cache", "budget_bytes"), "cache_budget_mb");
	printf("cache     %s in %lld builds %s\n", a, (long long)num(res, "cache", "builds"), lim);
	if (num(res, "cache", "budget_bytes") > 0 &&
	    num(res, "cache", "bytes") > num(res, "cache", "budget_bytes") * 4 / 5)
		printf("          near or past its budget: builds unused for ten minutes are evicted, "
		       "least recently used first, and a call of an evicted tool builds it again "
		       "first (a second or more)\n");
	if (num(res, "store", "pack_threshold") > 0)
		snprintf(lim, sizeof(lim), "packed past %lld (pack_loose_objects)",
			 (long long)num(res, "store", "pack_threshold"));
	else
		snprintf(lim, sizeof(lim), "(pack_loose_objects: 0, packed only by toolgate gc)");
	printf("store     %lld loose objects, %lld packs, %s\n",
	       (long long)num(res, "store", "loose_objects"), (long long)num(res, "store", "packs"),
	       lim);
	{
		const json_t *cpu = json_object_get(res, "cpu");
		printf("cpu       %lld%% of a core per sandbox (cpu_percent): %s%s\n",
		       (long long)num(res, "cpu", "percent"),
		       json_is_true(json_object_get(cpu, "enforced")) ? "enforced by " : "NOT enforced: ",
		       cli_jline(json_object_get(cpu, "how")));
	}
	printf("runs      at most %lld runs and %lld builds at once on the host "
	       "(max_concurrent_runs, max_concurrent_builds; 0 = no cap)\n",
	       (long long)num(res, "concurrency", "max_concurrent_runs"),
	       (long long)num(res, "concurrency", "max_concurrent_builds"));
	if (json_is_true(json_object_get(res, "rebuild_unacknowledged")))
		printf("registry  REBUILT from the store, history lost: see toolgate verify\n");
	return TG_EXIT_OK;
}
