/*
 * registry/config/limits.c: a tool's run limits (docs/REGISTRY.md, "limits";
 * docs/BRIDGE.md, limits.max_tool_calls), decided once here for every layer
 * above: the manifest's and the one-off program's checks (reg_limits_parse,
 * with create/ and call/ naming the field), and what a run of stored limits
 * gets (reg_limits_read, for exec/'s sandbox and bridge). One table holds
 * each key, its default, its floor and its ceiling in tg_config; the stored
 * JSON stays the manifest's object.
 */

#include <stddef.h>
#include "registry/config/config.h"

static const struct limit_key {
	const char *key;
	size_t field;   /* offsetof(reg_limits, ...) */
	size_t ceiling; /* offsetof(tg_config, max_...) */
	uint32_t def;
	uint32_t lo;
} keys_tab[] = {
	{ "timeout_ms", offsetof(reg_limits, timeout_ms), offsetof(tg_config, max_timeout_ms),
	  REG_LIMITS_DEF_TIMEOUT_MS, REG_LIMITS_MIN_TIMEOUT_MS },
	{ "memory_mb", offsetof(reg_limits, memory_mb), offsetof(tg_config, max_memory_mb),
	  REG_LIMITS_DEF_MEMORY_MB, REG_LIMITS_MIN_MEMORY_MB },
	{ "output_kb", offsetof(reg_limits, output_kb), offsetof(tg_config, max_output_kb),
	  REG_LIMITS_DEF_OUTPUT_KB, REG_LIMITS_MIN_OUTPUT_KB },
	{ "max_tool_calls", offsetof(reg_limits, max_tool_calls),
	  offsetof(tg_config, max_tool_calls), REG_LIMITS_DEF_TOOL_CALLS, REG_LIMITS_MIN_TOOL_CALLS },
};
#define NKEYS TG_ARRAY_SIZE(keys_tab)

static uint32_t ceiling_of(const tg_config *cfg, const struct limit_key *k)
{
	return *(const uint32_t *)(const void *)((const char *)cfg + k->ceiling);
}

static uint32_t *field_of(reg_limits *l, const struct limit_key *k)
{
	return (uint32_t *)(void *)((char *)l + k->field);
}

int reg_limits_parse(reg_limits *out, const tg_config *cfg, const json_t *limits, const char *where)
{
	const char *names[NKEYS + 1];
	size_t i;
	int rc;

	if (limits) {
		for (i = 0; i < NKEYS; i++)
			names[i] = keys_tab[i].key;
		names[NKEYS] = NULL;
		if ((rc = tg_json_check_keys(limits, names, where)) < 0)
			return rc;
	}
	for (i = 0; limits && i < NKEYS; i++) {
		const struct limit_key *k = &keys_tab[i];
		json_t *x = json_object_get(limits, k->key);
		uint32_t hi = ceiling_of(cfg, k);
		json_int_t v;

		if (!x)
			continue;
		if (!json_is_integer(x))
			return tg_error_set(TG_ERR_INVALID, "%s.%s: must be an integer", where, k->key);
		v = json_integer_value(x);
		if (v < (json_int_t)k->lo)
			return tg_error_set(TG_ERR_INVALID, "%s.%s: must be at least %lld", where,
					    k->key, (long long)k->lo);
		if (v > (json_int_t)hi)
			return tg_error_set(TG_ERR_LIMIT,
					    "%s.%s: %lld exceeds this home's maximum "
					    "of %u (config.json max_%s)",
					    where, k->key, (long long)v, hi, k->key);
	}
	if (out)
		reg_limits_read(out, cfg, limits);
	return 0;
}

/* A stored value below the floor (a store written by hand) is still taken
 * from 1 (max_tool_calls: 0) up, as runs always took it; a ceiling of 0,
 * which only max_tool_calls may have (config.c), leaves the default. */
void reg_limits_read(reg_limits *out, const tg_config *cfg, const json_t *limits)
{
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		const struct limit_key *k = &keys_tab[i];
		json_t *x = limits ? json_object_get(limits, k->key) : NULL;
		uint32_t hi = ceiling_of(cfg, k), *f = field_of(out, k);
		json_int_t least = k->lo ? 1 : 0;

		if (x && json_is_integer(x) && json_integer_value(x) >= least &&
		    json_integer_value(x) <= (json_int_t)hi)
			*f = (uint32_t)json_integer_value(x);
		else
			*f = hi && k->def > hi ? hi : k->def;
	}
}

json_t *reg_limits_json(const reg_limits *l)
{
	return json_pack("{s:I,s:I,s:I}", "timeout_ms", (json_int_t)l->timeout_ms, "memory_mb",
			 (json_int_t)l->memory_mb, "output_kb", (json_int_t)l->output_kb);
}
