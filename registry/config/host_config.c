/*
 * registry/config/host_config.c: the host tools that config.json declares
 * ("host_tools", docs/BRIDGE.md, docs/CONFIG.md): each entry checked at
 * load (name, description, input schema, argv or a fixed result, approval
 * policy), found by name, and its "version", the digest an approval of a
 * host call is bound to. Running one is the bridge's (exec/bridge_host.c).
 */

#include <fnmatch.h>
#include <string.h>
#include "registry/config/config.h"
#include "registry/schema/schema.h"

#define HOST_MAX_TOOLS 64

static int check_one(const json_t *t, size_t i, const json_t *list, unsigned sflags)
{
	static const char *const keys[] = { "name", "description", "input_schema", "argv",
					    "result", "timeout_ms", "output_kb", "approval",
					    "match", NULL };
	const char *name = NULL, *desc = NULL, *ap = NULL;
	json_t *schema = NULL, *argv = json_object_get(t, "argv"), *m, *v, *x;
	const char *key;
	tg_schema *cs = NULL;
	size_t k;

	if (!json_is_object(t))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu]: must be an object", i);
	if (tg_json_check_keys(t, keys, "host tool") < 0 ||
	    tg_json_get_string(&name, t, "name", 1) < 0 ||
	    tg_json_get_string(&desc, t, "description", 1) < 0 ||
	    tg_json_get_object(&schema, t, "input_schema", 1) < 0 ||
	    tg_json_get_string(&ap, t, "approval", 1) < 0)
		return tg_error_prefix("host_tools[%zu]", i);
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].name: must match "
						    "^[a-z][a-z0-9_]{0,63}$", i);
	for (k = 0; k < i; k++)
		if (json_equal(json_object_get(json_array_get(list, k), "name"),
			       json_object_get(t, "name")))
			return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].name: duplicate", i);
	if (tg_schema_compile(&cs, schema, "input_schema", TG_SCHEMA_TOP_OBJECT | sflags) < 0)
		return tg_error_prefix("host_tools[%zu].input_schema", i);
	tg_schema_free(cs);
	if (!argv == !json_object_get(t, "result"))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu]: needs exactly one of \"argv\" "
						    "and \"result\"", i);
	if (argv) {
		if (!json_is_array(argv) || json_array_size(argv) == 0 || json_array_size(argv) > 64)
			return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].argv: must be an array of "
							    "1 to 64 strings", i);
		json_array_foreach(argv, k, v)
			if (!json_is_string(v))
				return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].argv[%zu]: must "
								    "be a string", i, k);
		if (json_string_value(json_array_get(argv, 0))[0] != '/')
			return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].argv[0]: must be an "
							    "absolute path", i);
	}
	x = json_object_get(t, "timeout_ms");
	if (x && (!json_is_integer(x) || json_integer_value(x) < 10 ||
		  json_integer_value(x) > 600000))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].timeout_ms: must be between 10 "
						    "and 600000", i);
	x = json_object_get(t, "output_kb");
	if (x && (!json_is_integer(x) || json_integer_value(x) < 1 ||
		  json_integer_value(x) > 65536))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].output_kb: must be between 1 "
						    "and 65536", i);
	if (strcmp(ap, "never") && strcmp(ap, "always") && strcmp(ap, "match"))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].approval: must be never, "
						    "always or match", i);
	m = json_object_get(t, "match");
	if (!m != !!strcmp(ap, "match"))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].match: is required with "
						    "approval \"match\" and only then", i);
	if (m && (!json_is_object(m) || json_object_size(m) == 0))
		return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].match: must be an object of "
						    "argument name -> [patterns]", i);
	json_object_foreach(m, key, v) {
		json_t *p;
		if (!json_is_array(v) || json_array_size(v) == 0)
			return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].match.%s: must be a "
							    "non-empty array of patterns", i, key);
		json_array_foreach(v, k, p)
			if (!json_is_string(p))
				return tg_error_set(TG_ERR_INVALID, "host_tools[%zu].match.%s[%zu]: "
								    "must be a string", i, key, k);
	}
	return 0;
}

int reg_host_config(tg_config *cfg, const json_t *list, unsigned sflags)
{
	size_t i;
	json_t *t;

	if (!list)
		return 0;
	if (!json_is_array(list))
		return tg_error_set(TG_ERR_INVALID, "host_tools: must be an array");
	if (json_array_size(list) > HOST_MAX_TOOLS)
		return tg_error_set(TG_ERR_LIMIT, "host_tools: at most %d", HOST_MAX_TOOLS);
	json_array_foreach(list, i, t)
		if (check_one(t, i, list, sflags) < 0)
			return tg_error_last()->code;
	cfg->host_tools = json_deep_copy(list);
	return cfg->host_tools ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

const json_t *reg_host_find(const tg_config *cfg, const char *name)
{
	size_t i;
	json_t *t;

	json_array_foreach(cfg->host_tools, i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return t;
	return NULL;
}

/* The host tool's "version": a digest of its configuration entry, so an
 * approval is bound to what the operator configured when it was given. */
static void host_version(char out[65], const json_t *ht)
{
	_cleanup_free_ char *text = json_dumps(ht, JSON_COMPACT | JSON_SORT_KEYS);
	tg_sha256_hex(out, text ? text : "", text ? strlen(text) : 0);
}

int reg_host_version(char out[65], const tg_config *cfg, const char *name)
{
	const json_t *ht = reg_host_find(cfg, name);

	out[0] = '\0';
	if (!ht)
		return 0; /* no such tool: nothing to match, the call says so */
	host_version(out, ht);
	return 0;
}
