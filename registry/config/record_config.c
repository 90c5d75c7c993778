/*
 * registry/config/record_config.c: the config.json keys of recorded calls
 * and shadow runs (docs/CONFIG.md, docs/REGISTRY.md "A new version earns
 * its place"). "record_calls" is an integer (samples kept per tool), a
 * boolean (false: none; true: the defaults) or an object {"calls",
 * "tool_kb", "home_mb"}; "record_workspace_calls" lets calls of tools that
 * hold workspace:* capabilities be recorded too; "shadow_samples" is how
 * many of them a new version is run on; "promotion" is "tests", "shadow"
 * or "strict".
 */
#include <string.h>
#include "registry/config/config.h"

#define REC_DEF_CALLS 64u
#define REC_DEF_TOOL_KB 2048u
#define REC_DEF_HOME_MB 64u
#define REC_DEF_SHADOW 32u

void reg_record_config_defaults(tg_config *cfg)
{
	cfg->record_calls = REC_DEF_CALLS;
	cfg->record_tool_kb = REC_DEF_TOOL_KB;
	cfg->record_home_mb = REC_DEF_HOME_MB;
	cfg->record_workspace_calls = 0;
	cfg->shadow_samples = REC_DEF_SHADOW;
	cfg->promotion = TG_PROMOTION_SHADOW;
}

static int u32_in(uint32_t *out, const json_t *x, const char *key, uint32_t lo, uint32_t hi)
{
	json_int_t v;

	if (!x)
		return 0;
	if (!json_is_integer(x))
		return tg_error_set(TG_ERR_INVALID, "%s: must be an integer", key);
	v = json_integer_value(x);
	if (v < (json_int_t)lo || v > (json_int_t)hi)
		return tg_error_set(TG_ERR_INVALID, "%s: must be between %u and %u", key, lo, hi);
	*out = (uint32_t)v;
	return 0;
}

static int record_calls(tg_config *cfg, const json_t *x)
{
	static const char *const keys[] = { "calls", "tool_kb", "home_mb", NULL };
	int rc;

	if (!x)
		return 0;
	if (json_is_boolean(x)) {
		cfg->record_calls = json_is_true(x) ? REC_DEF_CALLS : 0;
		return 0;
	}
	if (json_is_integer(x))
		return u32_in(&cfg->record_calls, x, "record_calls", 0, 1024);
	if (!json_is_object(x))
		return tg_error_set(TG_ERR_INVALID, "record_calls: must be an integer, a boolean "
						    "or an object");
	if ((rc = tg_json_check_keys(x, keys, "record_calls")) < 0)
		return rc;
	if ((rc = u32_in(&cfg->record_calls, json_object_get(x, "calls"), "record_calls.calls", 0,
			 1024)) < 0 ||
	    (rc = u32_in(&cfg->record_tool_kb, json_object_get(x, "tool_kb"),
			 "record_calls.tool_kb", 1, 1u << 20)) < 0 ||
	    (rc = u32_in(&cfg->record_home_mb, json_object_get(x, "home_mb"),
			 "record_calls.home_mb", 1, 1u << 16)) < 0)
		return rc;
	return 0;
}

int reg_record_config(tg_config *cfg, const json_t *j)
{
	const char *p = NULL;
	int b = 0, rc;

	if (!j)
		return 0;
	if ((rc = record_calls(cfg, json_object_get(j, "record_calls"))) < 0)
		return rc;
	if ((rc = tg_json_get_bool(&b, j, "record_workspace_calls", 0)) < 0)
		return rc;
	cfg->record_workspace_calls = b;
	if ((rc = u32_in(&cfg->shadow_samples, json_object_get(j, "shadow_samples"),
			 "shadow_samples", 0, 1024)) < 0)
		return rc;
	if ((rc = tg_json_get_string(&p, j, "promotion", 0)) < 0)
		return rc;
	if (!p)
		return 0;
	if (strcmp(p, "tests") == 0)
		cfg->promotion = TG_PROMOTION_TESTS;
	else if (strcmp(p, "shadow") == 0)
		cfg->promotion = TG_PROMOTION_SHADOW;
	else if (strcmp(p, "strict") == 0)
		cfg->promotion = TG_PROMOTION_STRICT;
	else
		return tg_error_set(TG_ERR_INVALID, "promotion: must be \"tests\", \"shadow\" or "
						    "\"strict\"");
	return 0;
}
