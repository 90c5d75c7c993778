/*
 * registry/config/config.h: the lowest layer of registry/ (with schema/): config.json
 * read into tg_config with its defaults and ceilings (config.c), and the
 * host tools it declares (host_config.c). Nothing here opens a database.
 */
#ifndef TG_REG_CONFIG_H
#define TG_REG_CONFIG_H

#include "registry/registry.h"

int reg_config_load(tg_config *cfg, const char *home);
void reg_config_clear(tg_config *cfg);

/* host_config.c: host tools from config.json (docs/BRIDGE.md). */
int reg_host_config(tg_config *cfg, const json_t *list);
/* The configured host tool NAME, or NULL. */
const json_t *reg_host_find(const tg_config *cfg, const char *name);
/* The digest of host tool NAME's config entry, or -1 (""). */
int reg_host_version(char out[65], const tg_config *cfg, const char *name);

#endif
