/*
 * registry/config/config.c: the home's config.json (docs/CONFIG.md). Every key is
 * optional; unknown keys, wrong types and out-of-range values are refused
 * with a message naming the key, so a typo never silently falls back to a
 * default.
 */

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "registry/config/config.h"
#include "registry/schema/schema.h"
#include "sandbox/sandbox.h"

/* Defaults and the hard ceilings a config may raise them to. */
#define CFG_DEF_TIMEOUT_MS 10000u
#define CFG_DEF_MEMORY_MB 256u
#define CFG_DEF_OUTPUT_KB 1024u
/* quotas and upkeep (docs/CONFIG.md, "Quotas") */
#define CFG_DEF_QUOTA_HOME_MB 1024u
#define CFG_DEF_MAX_BINARY_MB 16u
#define CFG_DEF_MAX_REJECTED_HOUR 20u
#define CFG_DEF_CACHE_BUDGET_MB 256u
#define CFG_DEF_PACK_LOOSE 1000u
#define CFG_DEF_SESSION_CALLS 10000u   /* per MCP session (issue 15: never unlimited by default) */
#define CFG_DEF_SESSION_CREATES 500u
#define CFG_DEF_SESSION_CREATES_MIN 10u
#define CFG_DEF_HOME_CREATES_MIN 30u
#define CFG_DEF_CONCURRENT_BUILDS 2u
#define CFG_DEF_CPU_PERCENT 100u
#define CFG_DEF_QUOTA_SESSION_MB 256u
#define CFG_DEF_QUOTA_TOOL_MB 128u
#define CFG_CEIL_TIMEOUT_MS 600000u
#define CFG_CEIL_MEMORY_MB 16384u
#define CFG_CEIL_OUTPUT_KB 65536u

unsigned reg_schema_flags(const tg_config *cfg, int at_create)
{
	if (!cfg->schema_assert_format)
		return 0;
	return TG_SCHEMA_ASSERT_FORMAT | (at_create ? 0 : TG_SCHEMA_FORMAT_UNKNOWN_OK);
}

void reg_config_clear(tg_config *cfg)
{
	free(cfg->workspace);
	free(cfg->signing_key);
	free(cfg->audit_mirror_socket);
	json_decref(cfg->host_tools);
	memset(cfg, 0, sizeof(*cfg));
}

static int get_u32(uint32_t *out, const json_t *o, const char *key, uint32_t lo, uint32_t hi)
{
	json_t *x = json_object_get(o, key);
	int64_t v;

	if (!x)
		return 0;
	if (!json_is_integer(x))
		return tg_error_set(TG_ERR_INVALID, "%s: must be an integer", key);
	v = json_integer_value(x);
	if (v < (int64_t)lo || v > (int64_t)hi)
		return tg_error_set(TG_ERR_INVALID, "%s: must be between %u and %u", key, lo, hi);
	*out = (uint32_t)v;
	return 0;
}

/* max_concurrent_runs by default: twice the online cores, at least 2. */
static uint32_t default_runs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (n > 512)
		n = 512;
	return (uint32_t)n * 2u;
}

/* "audit_mirror" (off, journal, syslog, auto) and "audit_mirror_socket"
 * (an absolute path of a datagram socket, for tests: docs/CONFIG.md). */
static int mirror_config(tg_config *cfg, const json_t *j)
{
	static const char *const modes[] = { "off", "journal", "syslog", "auto" };
	const char *m = NULL, *sock = NULL;
	int rc, i;

	if ((rc = tg_json_get_string(&m, j, "audit_mirror", 0)) < 0)
		return rc;
	for (i = 0; m && i < 4; i++)
		if (strcmp(m, modes[i]) == 0)
			break;
	if (m && i == 4)
		return tg_error_set(TG_ERR_INVALID, "audit_mirror: must be \"off\", \"journal\", "
						    "\"syslog\" or \"auto\"");
	cfg->audit_mirror = m ? i : TG_AUDIT_MIRROR_OFF;
	if ((rc = tg_json_get_string(&sock, j, "audit_mirror_socket", 0)) < 0)
		return rc;
	if (!sock)
		return 0;
	if (sock[0] != '/' || strlen(sock) >= 108)
		return tg_error_set(TG_ERR_INVALID, "audit_mirror_socket: must be an absolute "
						    "path shorter than 108 bytes");
	cfg->audit_mirror_socket = strdup(sock);
	return cfg->audit_mirror_socket ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int reg_config_load(tg_config *cfg, const char *home)
{
	static const char *const keys[] = { "max_timeout_ms", "max_memory_mb", "max_output_kb",
					    "workspace", "session_max_calls",
					    "session_max_creates", "session_hide_write_tools",
					    "require_cgroups", "max_tool_calls", "max_call_depth",
					    "pull_test_max_tool_calls",
					    "host_tools", "call_approval_timeout_ms", "sandbox_pool",
					    "quota_home_mb", "max_binary_mb",
					    "max_rejected_per_tool_hour", "cache_budget_mb",
					    "pack_loose_objects", "analyze_timeout_ms",
					    "session_max_creates_per_minute",
					    "home_max_creates_per_minute", "max_concurrent_builds",
					    "max_concurrent_runs", "cpu_percent", "quota_session_mb",
					    "quota_tool_mb", "signing_key", "record_calls",
					    "record_workspace_calls", "shadow_samples",
					    "promotion", "property_tests",
					    "property_test_budget_ms", "sandbox_backend",
					    "audit_mirror", "audit_mirror_socket",
					    "schema_assert_format",
					    "http_header_timeout_ms", "http_unauth_connections_per_ip",
					    "http_auth_reserve_percent", "http_body_budget_mb", NULL };
	_cleanup_free_ char *path = tg_path_join(home, "config.json");
	_cleanup_json_ json_t *j = NULL;
	const char *ws = NULL;
	struct stat stt;
	int b = 0, rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->max_timeout_ms = CFG_DEF_TIMEOUT_MS;
	cfg->max_memory_mb = CFG_DEF_MEMORY_MB;
	cfg->max_output_kb = CFG_DEF_OUTPUT_KB;
	cfg->max_tool_calls = 64;
	cfg->max_call_depth = 2;
	cfg->pull_test_max_tool_calls = 64;
	cfg->call_approval_timeout_ms = 120000;
	cfg->analyze_timeout_ms = 10000;
	cfg->property_tests = 64;
	cfg->property_test_budget_ms = 3000;
	cfg->sandbox_pool = 2; /* serve; over HTTP per worker, at most 8 in all: docs/SANDBOX.md, "The pool" */
	cfg->quota_home_mb = CFG_DEF_QUOTA_HOME_MB;
	cfg->max_binary_mb = CFG_DEF_MAX_BINARY_MB;
	cfg->max_rejected_per_tool_hour = CFG_DEF_MAX_REJECTED_HOUR;
	cfg->cache_budget_mb = CFG_DEF_CACHE_BUDGET_MB;
	cfg->pack_loose_objects = CFG_DEF_PACK_LOOSE;
	cfg->session_max_calls = CFG_DEF_SESSION_CALLS;
	cfg->session_max_creates = CFG_DEF_SESSION_CREATES;
	cfg->session_max_creates_per_minute = CFG_DEF_SESSION_CREATES_MIN;
	cfg->home_max_creates_per_minute = CFG_DEF_HOME_CREATES_MIN;
	cfg->max_concurrent_builds = CFG_DEF_CONCURRENT_BUILDS;
	cfg->max_concurrent_runs = default_runs();
	cfg->cpu_percent = CFG_DEF_CPU_PERCENT;
	cfg->quota_session_mb = CFG_DEF_QUOTA_SESSION_MB;
	cfg->quota_tool_mb = CFG_DEF_QUOTA_TOOL_MB;
	/* serve --http before a token is checked (docs/MCP.md, "Hostile load") */
	cfg->http_header_timeout_ms = 2000;
	cfg->http_unauth_connections_per_ip = 16;
	cfg->http_auth_reserve_percent = 25;
	cfg->http_body_budget_mb = 8;
	reg_record_config_defaults(cfg);
	if (!path)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (access(path, F_OK) != 0) {
		if (errno == ENOENT)
			return 0;
		return tg_error_errno(TG_ERR_IO, errno, "%s", path);
	}
	rc = tg_json_parse_file(&j, path, NULL);
	if (rc < 0)
		return rc;
	if (!json_is_object(j))
		return tg_error_set(TG_ERR_INVALID, "%s: must be a JSON object", path);
	rc = tg_json_check_keys(j, keys, "config.json");
	if (rc < 0)
		goto bad;
	/* a ceiling of a run's limits is never below the limit's floor (limits.c) */
	if ((rc = get_u32(&cfg->max_timeout_ms, j, "max_timeout_ms", REG_LIMITS_MIN_TIMEOUT_MS,
			  CFG_CEIL_TIMEOUT_MS)) < 0 ||
	    (rc = get_u32(&cfg->max_memory_mb, j, "max_memory_mb", REG_LIMITS_MIN_MEMORY_MB,
			  CFG_CEIL_MEMORY_MB)) < 0 ||
	    (rc = get_u32(&cfg->max_output_kb, j, "max_output_kb", REG_LIMITS_MIN_OUTPUT_KB,
			  CFG_CEIL_OUTPUT_KB)) < 0 ||
	    (rc = get_u32(&cfg->session_max_calls, j, "session_max_calls", 0, UINT32_MAX)) < 0 ||
	    (rc = get_u32(&cfg->session_max_creates, j, "session_max_creates", 0, UINT32_MAX)) < 0 ||
	    (rc = get_u32(&cfg->max_tool_calls, j, "max_tool_calls", REG_LIMITS_MIN_TOOL_CALLS,
			  4096)) < 0 ||
	    (rc = get_u32(&cfg->max_call_depth, j, "max_call_depth", 0, 8)) < 0 ||
	    (rc = get_u32(&cfg->pull_test_max_tool_calls, j, "pull_test_max_tool_calls", 0,
			  4096)) < 0 ||
	    (rc = get_u32(&cfg->call_approval_timeout_ms, j, "call_approval_timeout_ms", 100,
			  3600000)) < 0 ||
	    (rc = get_u32(&cfg->sandbox_pool, j, "sandbox_pool", 0, 8)) < 0 ||
	    (rc = get_u32(&cfg->quota_home_mb, j, "quota_home_mb", 0, 16u << 20)) < 0 ||
	    (rc = get_u32(&cfg->max_binary_mb, j, "max_binary_mb", 0, 4096)) < 0 ||
	    (rc = get_u32(&cfg->max_rejected_per_tool_hour, j, "max_rejected_per_tool_hour", 0,
			  100000)) < 0 ||
	    (rc = get_u32(&cfg->cache_budget_mb, j, "cache_budget_mb", 0, 16u << 20)) < 0 ||
	    (rc = get_u32(&cfg->pack_loose_objects, j, "pack_loose_objects", 0, 100000)) < 0 ||
	    (rc = get_u32(&cfg->analyze_timeout_ms, j, "analyze_timeout_ms", 1000, 600000)) < 0 ||
	    (rc = get_u32(&cfg->property_tests, j, "property_tests", 0, 4096)) < 0 ||
	    (rc = get_u32(&cfg->property_test_budget_ms, j, "property_test_budget_ms", 100,
			  600000)) < 0 ||
	    (rc = get_u32(&cfg->session_max_creates_per_minute, j,
			  "session_max_creates_per_minute", 0, 100000)) < 0 ||
	    (rc = get_u32(&cfg->home_max_creates_per_minute, j, "home_max_creates_per_minute", 0,
			  100000)) < 0 ||
	    (rc = get_u32(&cfg->max_concurrent_builds, j, "max_concurrent_builds", 0, 64)) < 0 ||
	    (rc = get_u32(&cfg->max_concurrent_runs, j, "max_concurrent_runs", 0, 1024)) < 0 ||
	    (rc = get_u32(&cfg->cpu_percent, j, "cpu_percent", 0, 6400)) < 0 ||
	    (rc = get_u32(&cfg->quota_session_mb, j, "quota_session_mb", 0, 16u << 20)) < 0 ||
	    (rc = get_u32(&cfg->quota_tool_mb, j, "quota_tool_mb", 0, 16u << 20)) < 0 ||
	    (rc = get_u32(&cfg->http_header_timeout_ms, j, "http_header_timeout_ms", 100,
			  10000)) < 0 ||
	    (rc = get_u32(&cfg->http_unauth_connections_per_ip, j,
			  "http_unauth_connections_per_ip", 0, 10000)) < 0 ||
	    (rc = get_u32(&cfg->http_auth_reserve_percent, j, "http_auth_reserve_percent", 0,
			  90)) < 0 ||
	    (rc = get_u32(&cfg->http_body_budget_mb, j, "http_body_budget_mb", 1, 4096)) < 0 ||
	    (rc = tg_json_get_bool(&cfg->schema_assert_format, j, "schema_assert_format", 0)) < 0 ||
	    /* after schema_assert_format: host tools' schemas are checked with it */
	    (rc = reg_host_config(cfg, json_object_get(j, "host_tools"),
				     reg_schema_flags(cfg, 1))) < 0 ||
	    (rc = reg_record_config(cfg, j)) < 0 || (rc = mirror_config(cfg, j)) < 0)
		goto bad;
	rc = tg_json_get_bool(&b, j, "session_hide_write_tools", 0);
	if (rc < 0)
		goto bad;
	cfg->session_hide_write_tools = b;
	b = 0;
	rc = tg_json_get_bool(&b, j, "require_cgroups", 0);
	if (rc < 0)
		goto bad;
	cfg->require_cgroups = b;
	rc = tg_json_get_string(&ws, j, "workspace", 0);
	if (rc < 0)
		goto bad;
	if (ws) {
		if (ws[0] != '/') {
			rc = tg_error_set(TG_ERR_INVALID, "workspace: must be an absolute path");
			goto bad;
		}
		if (stat(ws, &stt) != 0 || !S_ISDIR(stt.st_mode)) {
			rc = tg_error_set(TG_ERR_INVALID, "workspace: %s is not a folder", ws);
			goto bad;
		}
		cfg->workspace = strdup(ws);
		if (!cfg->workspace)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	/* "native" (default) or "gvisor": the kernel tool runs get
	 * (docs/SANDBOX.md, "gVisor backend") */
	ws = NULL;
	if ((rc = tg_json_get_string(&ws, j, "sandbox_backend", 0)) < 0)
		goto bad;
	if (ws && strcmp(ws, "native") != 0 && strcmp(ws, "gvisor") != 0) {
		rc = tg_error_set(TG_ERR_INVALID, "sandbox_backend: must be \"native\" or \"gvisor\"");
		goto bad;
	}
	cfg->sandbox_backend = ws && !strcmp(ws, "gvisor") ? TG_SANDBOX_GVISOR : TG_SANDBOX_NATIVE;
	/* the key itself is checked when the store is opened (keys.c): a
	 * missing or wrong key is the environment's fault, exit 3 */
	ws = NULL;
	if ((rc = tg_json_get_string(&ws, j, "signing_key", 0)) < 0)
		goto bad;
	if (ws) {
		if (ws[0] != '/') {
			rc = tg_error_set(TG_ERR_INVALID, "signing_key: must be an absolute path");
			goto bad;
		}
		if (!(cfg->signing_key = strdup(ws))) {
			reg_config_clear(cfg);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
	}
	return 0;
bad:
	reg_config_clear(cfg);
	return tg_error_prefix("%s", path);
}
