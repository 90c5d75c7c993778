/*
 * registry/config/config.h: the lowest layer of registry/ (with schema/): config.json
 * read into tg_config with its defaults and ceilings (config.c), the
 * host tools it declares (host_config.c), and a tool's run limits checked
 * against those ceilings (limits.c). Nothing here opens a database.
 */
#ifndef TG_REG_CONFIG_H
#define TG_REG_CONFIG_H

#include "registry/registry.h"

int reg_config_load(tg_config *cfg, const char *home);
void reg_config_clear(tg_config *cfg);

/* The tg_schema flags (registry/schema/schema.h) every check and validation
 * of a tool's schemas uses, from config.json "schema_assert_format": 0, or
 * TG_SCHEMA_ASSERT_FORMAT. at_create: a submission's (or a host tool's)
 * schemas being checked, where an unknown format name is then refused;
 * otherwise a stored version's, where an unknown name stays an annotation
 * (TG_SCHEMA_FORMAT_UNKNOWN_OK) so a version created while the key was off
 * still runs. */
unsigned reg_schema_flags(const tg_config *cfg, int at_create);

/* host_config.c: host tools from config.json (docs/BRIDGE.md); their
 * schemas are checked with the tg_schema flags sflags (reg_schema_flags). */
int reg_host_config(tg_config *cfg, const json_t *list, unsigned sflags);
/* The configured host tool NAME, or NULL. */
const json_t *reg_host_find(const tg_config *cfg, const char *name);
/* The digest of host tool NAME's config entry, or -1 (""). */
int reg_host_version(char out[65], const tg_config *cfg, const char *name);

/* record_config.c: "record_calls", "record_workspace_calls",
 * "shadow_samples", "promotion" (docs/CONFIG.md). The defaults first, then
 * the keys of j (NULL: none). */
void reg_record_config_defaults(tg_config *cfg);
int reg_record_config(tg_config *cfg, const json_t *j);

/* limits.c: a manifest's or a one-off program's "limits" (docs/REGISTRY.md,
 * docs/BRIDGE.md). Each key's default (what a run gets when the key is
 * absent) and floor (the least a manifest may ask for); the ceiling is
 * config.json's max_<key>. The floors are also the least a ceiling may be
 * (config.c). */
#define REG_LIMITS_DEF_TIMEOUT_MS 2000u
#define REG_LIMITS_DEF_MEMORY_MB 64u
#define REG_LIMITS_DEF_OUTPUT_KB 1024u
#define REG_LIMITS_DEF_TOOL_CALLS 16u
#define REG_LIMITS_MIN_TIMEOUT_MS 10u
#define REG_LIMITS_MIN_MEMORY_MB 16u
#define REG_LIMITS_MIN_OUTPUT_KB 1u
#define REG_LIMITS_MIN_TOOL_CALLS 0u

/* The limits one run gets. */
typedef struct reg_limits {
	uint32_t timeout_ms;     /* wall clock of the sandbox */
	uint32_t memory_mb;      /* address space */
	uint32_t output_kb;      /* stdout + stderr */
	uint32_t max_tool_calls; /* bridged calls, every attempt counted */
} reg_limits;

/* Validate limits (NULL: none given) as the manifest's or program's field
 * named where ("limits"): an object of the four keys only, each an integer
 * from its floor (TG_ERR_INVALID "where.KEY: must be at least N") to
 * cfg's ceiling (TG_ERR_LIMIT "where.KEY: V exceeds this home's maximum of
 * N (config.json max_KEY)"). On success *out (may be NULL) gets the limits
 * a run gets, as reg_limits_read() gives them. */
int reg_limits_parse(reg_limits *out, const tg_config *cfg, const json_t *limits,
		     const char *where);
/* The limits a run gets from stored limits (NULL: none), checked when they
 * were stored: each value that is an integer within cfg's ceiling (and at
 * least 1; max_tool_calls: 0), else the key's default cut to the ceiling. */
void reg_limits_read(reg_limits *out, const tg_config *cfg, const json_t *limits);
/* {"timeout_ms","memory_mb","output_kb"} of l (reg_limits_applied), or
 * NULL when out of memory. */
json_t *reg_limits_json(const reg_limits *l);

#endif
