/*
 * analyzer/policy.c: the symbol allowlist and rule severities that decide a
 * verdict. The built-in default can be widened or narrowed by a JSON document
 * (format in docs/POLICY.md), read strictly with tg_json_parse: unknown keys,
 * wrong types, unknown rules, malformed names and oversize lists are refused.
 * The decisions built on the allowlist live here too (linker names, the
 * __builtin_ forms of allowed functions); symbols.c only holds the tables.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void free_strv(char **v, size_t n)
{
	size_t i;
	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void tg_policy_free(tg_policy *p)
{
	if (!p)
		return;
	free_strv(p->allow, p->nallow);
	free_strv(p->extra, p->nextra);
	free_strv(p->removed, p->nremoved);
	free(p->severity);
	free(p->sev_set);
	free(p);
}

static int in_sorted(char *const *v, size_t n, const char *name)
{
	return v && n && bsearch(&name, v, n, sizeof(*v), cmp_str) != NULL;
}

int tg_policy_allows(const tg_policy *p, const char *name)
{
	return p && name && in_sorted(p->allow, p->nallow, name);
}

int tg_policy_allows_linker(const tg_policy *p, const char *name)
{
	char base[TG_SYMBOL_MAX + 1];
	size_t n;

	if (tg_policy_allows(p, name))
		return 1;
	n = strlen(name);
	if (n > TG_SYMBOL_MAX)
		return 0;
	/* __isoc99_sscanf, __isoc23_strtol */
	if (strncmp(name, "__isoc99_", 9) == 0 || strncmp(name, "__isoc23_", 9) == 0)
		return tg_policy_allows(p, name + 9);
	/* __printf_chk, __memcpy_chk ... */
	if (n > 6 && strncmp(name, "__", 2) == 0 && strcmp(name + n - 4, "_chk") == 0) {
		memcpy(base, name + 2, n - 6);
		base[n - 6] = 0;
		if (!strncmp(base, "isoc99_", 7) || !strncmp(base, "isoc23_", 7))
			return tg_policy_allows(p, base + 7);
		return tg_policy_allows(p, base);
	}
	/* libgcc arithmetic helpers that gcc calls for builtins and wide types */
	{
		static const char *const libgcc[] = {
			"__popcountdi2", "__popcountsi2", "__popcountti2", "__paritydi2",
			"__paritysi2", "__parityti2", "__clzdi2", "__clzti2", "__ctzdi2", "__ctzti2",
			"__ffsdi2", "__ffsti2", "__divti3", "__udivti3", "__modti3", "__umodti3",
			"__udivmodti4", "__mulodi4", "__muloti4", "__muldc3", "__mulsc3", "__mulxc3",
			"__divdc3", "__divsc3", "__divxc3", "__powidf2", "__powisf2", "__powixf2",
			"__fixdfti", "__fixunsdfti", "__floattidf", "__floatuntidf", "__fixsfti",
			"__fixunssfti", "__floattisf", "__floatuntisf", NULL,
		};
		size_t i;
		for (i = 0; libgcc[i]; i++)
			if (strcmp(libgcc[i], name) == 0)
				return 1;
	}
	/* glibc's internal names of stdio on the standard streams */
	if (strcmp(name, "_IO_getc") == 0 || strcmp(name, "_IO_putc") == 0)
		return tg_policy_allows(p, name + 4);
	/* getline() is an inline call of __getdelim with -O2 */
	if (strcmp(name, "__getdelim") == 0)
		return tg_policy_allows(p, "getdelim");
	return 0;
}

int tg_builtin_allowed(const tg_policy *p, const char *name)
{
	const char *const *list = tg_builtin_list();
	size_t i, n;
	char base[TG_SYMBOL_MAX + 1];

	for (i = 0; list[i]; i++)
		if (strcmp(list[i], name) == 0)
			return 1;
	if (strncmp(name, "__builtin_", 10) != 0)
		return 0;
	/* __builtin_<f> and __builtin___<f>_chk for an allowed f */
	name += 10;
	if (strncmp(name, "__", 2) == 0) {
		n = strlen(name + 2);
		if (n <= 4 || n > TG_SYMBOL_MAX || strcmp(name + 2 + n - 4, "_chk") != 0)
			return 0;
		memcpy(base, name + 2, n - 4);
		base[n - 4] = 0;
		name = base;
	}
	if (tg_symbol_category(name))
		return 0;
	return tg_policy_allows(p, name);
}

static int valid_symbol(const char *s)
{
	size_t i, n = strlen(s);
	if (n == 0 || n > TG_SYMBOL_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (i > 0 && c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

/* Build the effective allowlist: built-in + extra - removed. */
static int policy_build(tg_policy *p)
{
	const char **b;
	size_t nb = tg_builtin_allowlist(&b), i, o;
	char **v = calloc(nb + p->nextra + 1, sizeof(*v));

	if (!v)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	o = 0;
	for (i = 0; i < nb; i++)
		if (!in_sorted(p->removed, p->nremoved, b[i]) && !(v[o++] = strdup(b[i])))
			goto oom;
	for (i = 0; i < p->nextra; i++)
		if (!in_sorted(p->removed, p->nremoved, p->extra[i]) &&
		    !(v[o++] = strdup(p->extra[i])))
			goto oom;
	qsort(v, o, sizeof(*v), cmp_str);
	/* unique */
	if (o > 1) {
		size_t w = 1;
		for (i = 1; i < o; i++) {
			if (strcmp(v[i], v[w - 1]) == 0)
				free(v[i]);
			else
				v[w++] = v[i];
		}
		o = w;
	}
	p->allow = v;
	p->nallow = o;
	return 0;
oom:
	free_strv(v, o);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}

static tg_policy *policy_new(void)
{
	tg_policy *p = calloc(1, sizeof(*p));
	size_t i;
	if (!p)
		return NULL;
	p->severity = calloc(tg_nrules, sizeof(*p->severity));
	p->sev_set = calloc(tg_nrules, 1);
	if (!p->severity || !p->sev_set) {
		tg_policy_free(p);
		return NULL;
	}
	for (i = 0; i < tg_nrules; i++)
		p->severity[i] = tg_rules[i].severity;
	return p;
}

int tg_policy_default(tg_policy **out)
{
	tg_policy *p = policy_new();
	int r;

	*out = NULL;
	if (!p)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r = policy_build(p);
	if (r < 0) {
		tg_policy_free(p);
		return r;
	}
	*out = p;
	return 0;
}

static int read_names(char ***out, size_t *nout, const json_t *root, const char *key)
{
	json_t *arr = NULL;
	size_t i, n;
	char **v;
	int r = tg_json_get_array(&arr, root, key, 0);

	if (r < 0)
		return r;
	if (!arr)
		return 0;
	n = json_array_size(arr);
	if (n > TG_POLICY_MAX_NAMES)
		return tg_error_set(TG_ERR_LIMIT, "%s: more than %d names", key, TG_POLICY_MAX_NAMES);
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(arr, i);
		const char *s = json_string_value(e);
		if (!json_is_string(e)) {
			free_strv(v, i);
			return tg_error_set(TG_ERR_INVALID, "%s[%zu]: must be a string", key, i);
		}
		if (!valid_symbol(s)) {
			free_strv(v, i);
			return tg_error_set(TG_ERR_INVALID,
					    "%s[%zu]: not a C identifier of at most %d characters",
					    key, i, TG_SYMBOL_MAX);
		}
		if (!(v[i] = strdup(s))) {
			free_strv(v, i);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
	}
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 1; i < n; i++)
		if (strcmp(v[i], v[i - 1]) == 0) {
			r = tg_error_set(TG_ERR_INVALID, "%s: \"%s\" is listed twice", key, v[i]);
			free_strv(v, n);
			return r;
		}
	*out = v;
	*nout = n;
	return 0;
}

static int parse_severity(tg_severity *out, const char *s)
{
	if (strcmp(s, "error") == 0)
		*out = TG_SEV_ERROR;
	else if (strcmp(s, "warning") == 0)
		*out = TG_SEV_WARNING;
	else if (strcmp(s, "note") == 0)
		*out = TG_SEV_NOTE;
	else
		return -1;
	return 0;
}

static int read_severities(tg_policy *p, const json_t *root)
{
	json_t *obj = NULL;
	const char *key;
	json_t *val;
	int r = tg_json_get_object(&obj, root, "severity", 0);

	if (r < 0)
		return r;
	if (!obj)
		return 0;
	json_object_foreach(obj, key, val) {
		int idx = tg_rule_index(key);
		tg_severity s;
		if (idx < 0)
			return tg_error_set(TG_ERR_INVALID, "severity: unknown rule \"%.64s\"", key);
		if (!json_is_string(val) || parse_severity(&s, json_string_value(val)) < 0)
			return tg_error_set(TG_ERR_INVALID,
					    "severity.%s: must be \"error\", \"warning\" or \"note\"",
					    key);
		if (tg_rules[idx].floor_error && s != TG_SEV_ERROR)
			return tg_error_set(TG_ERR_INVALID,
					    "severity.%s: cannot be lowered (the analysis would be incomplete)",
					    key);
		p->severity[idx] = s;
		p->sev_set[idx] = 1;
	}
	return 0;
}

int tg_policy_from_json(tg_policy **out, const char *json, size_t len)
{
	static const char *const keys[] = { "version", "allow", "deny", "severity", NULL };
	_cleanup_json_ json_t *root = NULL;
	tg_json_limits lim = { 256 * 1024, 8 };
	tg_policy *p;
	int64_t version = 1;
	size_t i;
	int r;

	*out = NULL;
	r = tg_json_parse(&root, json, len, &lim);
	if (r < 0)
		return tg_error_prefix("policy");
	if (!json_is_object(root))
		return tg_error_set(TG_ERR_INVALID, "policy: must be a JSON object");
	r = tg_json_check_keys(root, keys, "policy");
	if (r < 0)
		return r;
	r = tg_json_get_int(&version, root, "version", 0);
	if (r < 0)
		return tg_error_prefix("policy");
	if (version != 1)
		return tg_error_set(TG_ERR_INVALID, "policy: version: must be 1");
	p = policy_new();
	if (!p)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((r = read_names(&p->extra, &p->nextra, root, "allow")) < 0 ||
	    (r = read_names(&p->removed, &p->nremoved, root, "deny")) < 0 ||
	    (r = read_severities(p, root)) < 0)
		goto fail;
	for (i = 0; i < p->nextra; i++)
		if (in_sorted(p->removed, p->nremoved, p->extra[i])) {
			r = tg_error_set(TG_ERR_INVALID, "policy: \"%s\" is both allowed and denied",
					 p->extra[i]);
			goto fail;
		}
	if ((r = policy_build(p)) < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	tg_policy_free(p);
	if (r != TG_ERR_NOMEM && strncmp(tg_error_last()->message, "policy", 6) != 0)
		tg_error_prefix("policy");
	return r;
}

int tg_policy_load(tg_policy **out, const char *path)
{
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	*out = NULL;
	if (!path || (stat(path, &st) < 0 && errno == ENOENT))
		return tg_policy_default(out);
	r = tg_file_read(&data, &len, path, 256 * 1024);
	if (r < 0)
		return tg_error_prefix("%s", path);
	r = tg_policy_from_json(out, data, len);
	if (r < 0)
		return tg_error_prefix("%s", path);
	return 0;
}

json_t *tg_strv_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int tg_policy_to_json(json_t **out, const tg_policy *p)
{
	json_t *o = json_object(), *sev = json_object();
	size_t i;

	*out = NULL;
	if (!o || !sev)
		goto oom;
	if (json_object_set_new(o, "version", json_integer(1)) < 0 ||
	    json_object_set_new(o, "allow", tg_strv_json(p->extra, p->nextra)) < 0 ||
	    json_object_set_new(o, "deny", tg_strv_json(p->removed, p->nremoved)) < 0)
		goto oom;
	for (i = 0; i < tg_nrules; i++)
		if (json_object_set_new(sev, tg_rules[i].id,
					json_string(tg_severity_name(p->severity[i]))) < 0)
			goto oom;
	if (json_object_set_new(o, "severity", sev) < 0) {
		sev = NULL;
		goto oom;
	}
	/* the effective allowlist is tg_policy_allows(); the document stays
	 * loadable by tg_policy_from_json (round trip) */
	*out = o;
	return 0;
oom:
	json_decref(sev);
	json_decref(o);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}
