/*
 * registry/schema/schema_compile.c: checking a schema document and compiling
 * it into nodes (schema_int.h). Every keyword is looked up in one table that
 * says what it is (an assertion, an applicator, an annotation, or refused)
 * and, for toolgate's extra rule, which types it can apply to: a schema that
 * declares a type may not use a keyword that can never apply to it
 * ({"type":"integer","minLength":1}). A keyword outside the table is refused,
 * so nothing an agent writes is silently ignored. Each fault is reported
 * with the path of the keyword ("input_schema.properties.n.minimum: must be
 * a number") and nothing is compiled further. $id, $anchor and $ref are
 * recorded here and resolved by schema_ref.c once the document is read.
 */
#include "registry/schema/schema_int.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum kw {
	K_TYPE, K_ENUM, K_CONST, K_MULTIPLE, K_BOUND, K_XBOUND, K_COUNT, K_PATTERN, K_UNIQUE,
	K_REQUIRED, K_DEPREQ, K_LIST, K_SUB, K_DEPSCHEMAS, K_MAP, K_ITEMS, K_FORMAT, K_STRING,
	K_BOOL, K_ANY, K_EXAMPLES, K_SCHEMA, K_ID, K_ANCHOR, K_REF, K_DYNAMIC, K_VOCAB, K_OLD,
};

#define NUM (TG_T_INTEGER | TG_T_NUMBER)

static const struct keyword {
	const char *name;
	enum kw kind;
	int applies; /* 0: any type */
	const char *what;
} keywords[] = {
	{"type", K_TYPE, 0, NULL},
	{"enum", K_ENUM, 0, NULL},
	{"const", K_CONST, 0, NULL},
	{"multipleOf", K_MULTIPLE, NUM, "numbers"},
	{"minimum", K_BOUND, NUM, "numbers"},
	{"maximum", K_BOUND, NUM, "numbers"},
	{"exclusiveMinimum", K_XBOUND, NUM, "numbers"},
	{"exclusiveMaximum", K_XBOUND, NUM, "numbers"},
	{"minLength", K_COUNT, TG_T_STRING, "strings"},
	{"maxLength", K_COUNT, TG_T_STRING, "strings"},
	{"pattern", K_PATTERN, TG_T_STRING, "strings"},
	{"minItems", K_COUNT, TG_T_ARRAY, "arrays"},
	{"maxItems", K_COUNT, TG_T_ARRAY, "arrays"},
	{"uniqueItems", K_UNIQUE, TG_T_ARRAY, "arrays"},
	{"minContains", K_COUNT, TG_T_ARRAY, "arrays"},
	{"maxContains", K_COUNT, TG_T_ARRAY, "arrays"},
	{"minProperties", K_COUNT, TG_T_OBJECT, "objects"},
	{"maxProperties", K_COUNT, TG_T_OBJECT, "objects"},
	{"required", K_REQUIRED, TG_T_OBJECT, "objects"},
	{"dependentRequired", K_DEPREQ, TG_T_OBJECT, "objects"},
	{"allOf", K_LIST, 0, NULL},
	{"anyOf", K_LIST, 0, NULL},
	{"oneOf", K_LIST, 0, NULL},
	{"not", K_SUB, 0, NULL},
	{"if", K_SUB, 0, NULL},
	{"then", K_SUB, 0, NULL},
	{"else", K_SUB, 0, NULL},
	{"dependentSchemas", K_DEPSCHEMAS, TG_T_OBJECT, "objects"},
	{"prefixItems", K_LIST, TG_T_ARRAY, "arrays"},
	{"items", K_ITEMS, TG_T_ARRAY, "arrays"},
	{"contains", K_SUB, TG_T_ARRAY, "arrays"},
	{"properties", K_MAP, TG_T_OBJECT, "objects"},
	{"patternProperties", K_MAP, TG_T_OBJECT, "objects"},
	{"additionalProperties", K_SUB, TG_T_OBJECT, "objects"},
	{"propertyNames", K_SUB, TG_T_OBJECT, "objects"},
	{"unevaluatedItems", K_SUB, TG_T_ARRAY, "arrays"},
	{"unevaluatedProperties", K_SUB, TG_T_OBJECT, "objects"},
	{"format", K_FORMAT, 0, NULL},
	{"title", K_STRING, 0, NULL},
	{"description", K_STRING, 0, NULL},
	{"$comment", K_STRING, 0, NULL},
	{"contentEncoding", K_STRING, 0, NULL},
	{"contentMediaType", K_STRING, 0, NULL},
	{"contentSchema", K_SUB, 0, NULL},
	{"deprecated", K_BOOL, 0, NULL},
	{"readOnly", K_BOOL, 0, NULL},
	{"writeOnly", K_BOOL, 0, NULL},
	{"default", K_ANY, 0, NULL},
	{"examples", K_EXAMPLES, 0, NULL},
	{"$schema", K_SCHEMA, 0, NULL},
	{"$id", K_ID, 0, NULL},
	{"$anchor", K_ANCHOR, 0, NULL},
	{"$ref", K_REF, 0, NULL},
	{"$defs", K_MAP, 0, NULL},
	{"$dynamicRef", K_DYNAMIC, 0, NULL},
	{"$dynamicAnchor", K_DYNAMIC, 0, NULL},
	{"$recursiveRef", K_DYNAMIC, 0, NULL},
	{"$recursiveAnchor", K_DYNAMIC, 0, NULL},
	{"$vocabulary", K_VOCAB, 0, NULL},
	{"definitions", K_OLD, 0, "$defs"},
	{"dependencies", K_OLD, 0, "dependentRequired or dependentSchemas"},
	{"additionalItems", K_OLD, 0, "prefixItems and items"},
};

#define META_2020 "https://json-schema.org/draft/2020-12/schema"

typedef struct cc {
	tg_schema *s;
	tg_snode *n;
	tg_spath *p;
	unsigned depth;
} cc;

static int fail(cc *c, const char *msg)
{
	return tg_error_set(TG_ERR_INVALID, "%s: %s", c->p->s, msg);
}

static int is_count(const json_t *v)
{
	return tg_sjson_is_int(v) && tg_sjson_ld(v) >= 0;
}

static const struct keyword *keyword_find(const char *name)
{
	for (size_t i = 0; i < TG_ARRAY_SIZE(keywords); i++)
		if (!strcmp(keywords[i].name, name))
			return &keywords[i];
	return NULL;
}

/* A subschema at key (already pushed on the path). */
static tg_snode *sub(cc *c, const json_t *v)
{
	return tg_scompile_node(c->s, v, c->p, c->n->base, c->depth + 1);
}

static int check_type(cc *c, const json_t *t)
{
	size_t at = c->p->len;
	int mask = 0, bit;
	if (json_is_string(t)) {
		if (!(mask = tg_stype_bit(json_string_value(t))))
			goto bad_name;
	} else if (json_is_array(t) && json_array_size(t) > 0) {
		for (size_t i = 0; i < json_array_size(t); i++) {
			const json_t *e = json_array_get(t, i);
			bit = json_is_string(e) ? tg_stype_bit(json_string_value(e)) : 0;
			tg_spath_index(c->p, i);
			if (!bit)
				goto bad_name;
			if (mask & bit)
				return tg_error_set(TG_ERR_INVALID, "%s: duplicate type \"%s\"", c->p->s,
						    json_string_value(e));
			mask |= bit;
			tg_spath_pop(c->p, at);
		}
	} else {
		return fail(c, "must be a type name or a non-empty array of type names");
	}
	c->n->types = mask; /* an integer value has TG_T_NUMBER too (tg_svalue_mask) */
	return 0;
bad_name:
	return fail(c, "must be one of \"object\", \"array\", \"string\", \"integer\", \"number\", "
		       "\"boolean\", \"null\"");
}

static int check_enum(cc *c, const json_t *v)
{
	char types[120];
	int mask = c->n->types;
	if (!json_is_array(v))
		return fail(c, "must be an array");
	if (json_array_size(v) > TG_SCHEMA_MAX_LIST)
		return tg_error_set(TG_ERR_LIMIT, "%s: more than %d values", c->p->s, TG_SCHEMA_MAX_LIST);
	for (size_t i = 0; i < json_array_size(v); i++) {
		const json_t *e = json_array_get(v, i);
		size_t old = tg_spath_index(c->p, i);
		if (mask && !(tg_svalue_mask(e) & mask))
			return tg_error_set(TG_ERR_INVALID, "%s: is not of the schema's type (%s)", c->p->s,
					    tg_smask_name(types, sizeof(types), mask));
		for (size_t j = 0; j < i; j++)
			if (tg_sjson_equal(json_array_get(v, j), e))
				return fail(c, "duplicate value");
		tg_spath_pop(c->p, old);
	}
	c->n->enum_v = v;
	return 0;
}

static int check_names(cc *c, const json_t *v, int is_required)
{
	if (!json_is_array(v))
		return fail(c, "must be an array of property names");
	if (json_array_size(v) > TG_SCHEMA_MAX_LIST)
		return tg_error_set(TG_ERR_LIMIT, "%s: more than %d names", c->p->s, TG_SCHEMA_MAX_LIST);
	for (size_t i = 0; i < json_array_size(v); i++) {
		const json_t *e = json_array_get(v, i);
		if (!json_is_string(e)) {
			tg_spath_index(c->p, i);
			return fail(c, "must be a string");
		}
		for (size_t j = 0; j < i; j++)
			if (tg_sjson_equal(json_array_get(v, j), e))
				return tg_error_set(TG_ERR_INVALID, "%s: duplicate name \"%s\"", c->p->s,
						    json_string_value(e));
	}
	if (is_required)
		c->n->required = v;
	return 0;
}

static int check_dep_required(cc *c, const json_t *v)
{
	const char *name;
	json_t *names;
	if (!json_is_object(v))
		return fail(c, "must be an object of arrays of property names");
	if (json_object_size(v) > TG_SCHEMA_MAX_LIST)
		return tg_error_set(TG_ERR_LIMIT, "%s: more than %d names", c->p->s, TG_SCHEMA_MAX_LIST);
	json_object_foreach((json_t *)v, name, names) {
		size_t old = tg_spath_key(c->p, name);
		int r = check_names(c, names, 0);
		if (r < 0)
			return r;
		tg_spath_pop(c->p, old);
	}
	c->n->dep_required = v;
	return 0;
}

static int check_list(cc *c, const char *key, const json_t *v)
{
	tg_slist *l = !strcmp(key, "allOf") ? &c->n->all_of : !strcmp(key, "anyOf") ? &c->n->any_of
		    : !strcmp(key, "oneOf") ? &c->n->one_of : &c->n->prefix;
	size_t n = json_array_size(v);
	if (!json_is_array(v) || n == 0)
		return fail(c, "must be a non-empty array of schemas");
	if (n > TG_SCHEMA_MAX_LIST)
		return tg_error_set(TG_ERR_LIMIT, "%s: more than %d schemas", c->p->s, TG_SCHEMA_MAX_LIST);
	if (!(l->v = calloc(n, sizeof(*l->v))))
		return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
	for (size_t i = 0; i < n; i++) {
		size_t old = tg_spath_index(c->p, i);
		if (!(l->v[i] = sub(c, json_array_get(v, i))))
			return TG_ERR_INVALID;
		l->n++;
		tg_spath_pop(c->p, old);
	}
	return 0;
}

static int check_map(cc *c, const char *key, const json_t *v)
{
	int is_props = !strcmp(key, "properties"), is_pp = !strcmp(key, "patternProperties");
	int is_dep = !strcmp(key, "dependentSchemas");
	size_t n = json_object_size(v), i = 0;
	const char *name;
	json_t *m;
	if (!json_is_object(v))
		return fail(c, "must be an object of schemas");
	if (is_props && (!(c->n->props = calloc(n + 1, sizeof(tg_snamed))) ||
			 !(c->n->prop_index = json_object())))
		return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
	if (is_dep && !(c->n->dep_schemas = calloc(n + 1, sizeof(tg_snamed))))
		return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
	if (is_pp && !(c->n->pprops = calloc(n + 1, sizeof(tg_spattern))))
		return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
	json_object_foreach((json_t *)v, name, m) {
		size_t old = tg_spath_key(c->p, name);
		tg_regex *re = NULL;
		tg_snode *node;
		if (is_pp) {
			if (++c->s->npatterns > TG_SCHEMA_MAX_PATTERNS)
				return tg_error_set(TG_ERR_LIMIT, "%s: more than %d patterns in the document",
						    c->p->s, TG_SCHEMA_MAX_PATTERNS);
			if (!(re = tg_sregex_compile(name, strlen(name), c->p->s)))
				return tg_error_last()->code;
			c->n->pprops[i].re = re; /* freed with the node even if sub() fails */
			c->n->npprops = i + 1;
		}
		if (!(node = sub(c, m)))
			return TG_ERR_INVALID;
		if (is_props) {
			c->n->props[i] = (tg_snamed){name, node};
			c->n->nprops = i + 1;
			if (json_object_set_new(c->n->prop_index, name, json_integer((json_int_t)i)) < 0)
				return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
		} else if (is_dep) {
			c->n->dep_schemas[i] = (tg_snamed){name, node};
			c->n->ndep = i + 1;
		} else if (is_pp) {
			c->n->pprops[i].node = node;
		}
		i++;
		tg_spath_pop(c->p, old);
	}
	return 0;
}

static int check_sub(cc *c, const char *key, const json_t *v)
{
	static const struct {
		const char *key;
		size_t off;
	} slots[] = {
		{"not", offsetof(tg_snode, not_)},
		{"if", offsetof(tg_snode, if_)},
		{"then", offsetof(tg_snode, then_)},
		{"else", offsetof(tg_snode, else_)},
		{"contains", offsetof(tg_snode, contains)},
		{"additionalProperties", offsetof(tg_snode, additional)},
		{"propertyNames", offsetof(tg_snode, prop_names)},
		{"unevaluatedItems", offsetof(tg_snode, uneval_items)},
		{"unevaluatedProperties", offsetof(tg_snode, uneval_props)},
		{"items", offsetof(tg_snode, items)},
	};
	tg_snode *node = sub(c, v);
	if (!node)
		return TG_ERR_INVALID;
	for (size_t i = 0; i < TG_ARRAY_SIZE(slots); i++)
		if (!strcmp(slots[i].key, key))
			*(tg_snode **)((char *)c->n + slots[i].off) = node;
	if (!strcmp(key, "unevaluatedItems") || !strcmp(key, "unevaluatedProperties"))
		c->n->uneval = 1;
	return 0; /* contentSchema: checked, never applied */
}

static int check_count(cc *c, const char *key, const json_t *v)
{
	static const struct {
		const char *key;
		size_t off;
	} slots[] = {
		{"minLength", offsetof(tg_snode, min_len)},
		{"maxLength", offsetof(tg_snode, max_len)},
		{"minItems", offsetof(tg_snode, min_items)},
		{"maxItems", offsetof(tg_snode, max_items)},
		{"minContains", offsetof(tg_snode, min_contains)},
		{"maxContains", offsetof(tg_snode, max_contains)},
		{"minProperties", offsetof(tg_snode, min_props)},
		{"maxProperties", offsetof(tg_snode, max_props)},
	};
	long double d;
	if (!is_count(v))
		return fail(c, "must be a non-negative integer");
	d = tg_sjson_ld(v);
	for (size_t i = 0; i < TG_ARRAY_SIZE(slots); i++)
		if (!strcmp(slots[i].key, key))
			*(int64_t *)((char *)c->n + slots[i].off) = d > (long double)INT64_MAX ? INT64_MAX
												     : (int64_t)d;
	return 0;
}

static int check_number(cc *c, const char *key, const json_t *v, enum kw kind)
{
	if (kind == K_XBOUND && json_is_boolean(v))
		return fail(c, "must be a number (the draft-04 boolean form is not supported)");
	if (!json_is_number(v))
		return fail(c, "must be a number");
	if (kind == K_MULTIPLE && !(tg_sjson_ld(v) > 0))
		return fail(c, "must be a number greater than 0");
	if (!strcmp(key, "minimum"))
		c->n->minimum = v;
	else if (!strcmp(key, "maximum"))
		c->n->maximum = v;
	else if (!strcmp(key, "exclusiveMinimum"))
		c->n->xminimum = v;
	else if (!strcmp(key, "exclusiveMaximum"))
		c->n->xmaximum = v;
	else
		c->n->multiple = v;
	return 0;
}

static int check_format(cc *c, const json_t *v)
{
	if (!json_is_string(v))
		return fail(c, "must be a string");
	c->n->format = tg_sformat_id(json_string_value(v));
	if (!c->n->format && (c->s->flags & TG_SCHEMA_ASSERT_FORMAT) &&
	    !(c->s->flags & TG_SCHEMA_FORMAT_UNKNOWN_OK))
		return fail(c, "unknown format (asserted formats: date, time, date-time, email, ipv4, "
			       "ipv6, uuid, uri)");
	return 0;
}

static int check_identity(cc *c, enum kw kind, const json_t *v)
{
	const char *t = json_string_value(v);
	if (!json_is_string(v))
		return fail(c, "must be a string");
	if (kind == K_SCHEMA) {
		size_t n = strlen(META_2020);
		if (strncmp(t, META_2020, n) || (t[n] && strcmp(t + n, "#")))
			return fail(c, "only JSON Schema 2020-12 is supported (\"" META_2020 "\")");
		return 0;
	}
	if (kind == K_ANCHOR) {
		int ok = (t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z') || t[0] == '_';
		for (const char *q = t + 1; ok && *q; q++)
			ok = strchr("-._", *q) || (*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'Z') ||
			     (*q >= 'a' && *q <= 'z');
		return ok ? 0 : fail(c, "must be a plain name (a letter or _, then letters, digits, -, _, .)");
	}
	if (kind == K_REF) {
		if (++c->s->nrefs > TG_SCHEMA_MAX_REFS)
			return tg_error_set(TG_ERR_LIMIT, "%s: more than %d $ref in the document", c->p->s,
					    TG_SCHEMA_MAX_REFS);
		c->n->ref_text = t;
	}
	return 0;
}

static int check_annotation(cc *c, enum kw kind, const json_t *v)
{
	if (kind == K_STRING && !json_is_string(v))
		return fail(c, "must be a string");
	if (kind == K_BOOL && !json_is_boolean(v))
		return fail(c, "must be true or false");
	if (kind == K_EXAMPLES && !json_is_array(v))
		return fail(c, "must be an array");
	return 0;
}

static int check_keyword(cc *c, const char *key, const json_t *v)
{
	const struct keyword *k = keyword_find(key);
	char types[120];
	if (!k)
		return fail(c, "unknown keyword (toolgate refuses what it would not enforce: "
			       "docs/SCHEMA.md lists the JSON Schema 2020-12 keywords it supports)");
	if (k->applies && c->n->types && !(c->n->types & k->applies))
		return tg_error_set(TG_ERR_INVALID, "%s: applies only to %s, but type is %s", c->p->s,
				    k->what, tg_smask_name(types, sizeof(types), c->n->types));
	switch (k->kind) {
	case K_TYPE: return 0; /* done first */
	case K_ENUM: return check_enum(c, v);
	case K_CONST: c->n->const_v = v; return 0;
	case K_MULTIPLE:
	case K_BOUND:
	case K_XBOUND: return check_number(c, key, v, k->kind);
	case K_COUNT: return check_count(c, key, v);
	case K_PATTERN:
		if (!json_is_string(v))
			return fail(c, "must be a string");
		if (++c->s->npatterns > TG_SCHEMA_MAX_PATTERNS)
			return tg_error_set(TG_ERR_LIMIT, "%s: more than %d patterns in the document",
					    c->p->s, TG_SCHEMA_MAX_PATTERNS);
		c->n->pattern = tg_sregex_compile(json_string_value(v), json_string_length(v), c->p->s);
		return c->n->pattern ? 0 : tg_error_last()->code;
	case K_UNIQUE:
		if (!json_is_boolean(v))
			return fail(c, "must be true or false");
		c->n->unique = json_is_true(v);
		return 0;
	case K_REQUIRED: return check_names(c, v, 1);
	case K_DEPREQ: return check_dep_required(c, v);
	case K_LIST: return check_list(c, key, v);
	case K_SUB: return check_sub(c, key, v);
	case K_DEPSCHEMAS:
	case K_MAP: return check_map(c, key, v);
	case K_ITEMS:
		if (json_is_array(v))
			return fail(c, "must be one schema (the tuple form is prefixItems in JSON Schema 2020-12)");
		return check_sub(c, key, v);
	case K_FORMAT: return check_format(c, v);
	case K_STRING:
	case K_BOOL:
	case K_ANY:
	case K_EXAMPLES: return check_annotation(c, k->kind, v);
	case K_SCHEMA:
	case K_ID:
	case K_ANCHOR:
	case K_REF: return check_identity(c, k->kind, v);
	case K_DYNAMIC:
		return fail(c, "not supported (dynamic references: use $ref and $defs within the document)");
	case K_VOCAB:
		return fail(c, "not supported (custom vocabularies: only the JSON Schema 2020-12 "
			       "applicator, validation, format and meta-data keywords are)");
	case K_OLD:
		return tg_error_set(TG_ERR_INVALID, "%s: not a JSON Schema 2020-12 keyword (use %s)",
				    c->p->s, k->what);
	}
	return 0;
}

static int check_bounds(cc *c, const char *lo, const char *hi)
{
	const json_t *a = json_object_get(c->n->json, lo), *b = json_object_get(c->n->json, hi);
	if (a && b && json_is_number(a) && json_is_number(b) && tg_sjson_cmp(a, b) > 0)
		return tg_error_set(TG_ERR_INVALID, "%s: %s is greater than %s", c->p->s, lo, hi);
	return 0;
}

/* Rules across keywords: bounds, a required name no value could have. */
static int check_consistency(cc *c)
{
	tg_snode *n = c->n;
	if (check_bounds(c, "minimum", "maximum") < 0 || check_bounds(c, "minLength", "maxLength") < 0 ||
	    check_bounds(c, "minItems", "maxItems") < 0 ||
	    check_bounds(c, "minProperties", "maxProperties") < 0)
		return TG_ERR_INVALID;
	if (n->additional && n->additional->boolean == 0 && !n->npprops) {
		for (size_t i = 0; i < json_array_size(n->required); i++) {
			const char *name = json_string_value(json_array_get(n->required, i));
			if (!n->prop_index || !json_object_get(n->prop_index, name)) {
				tg_spath_key(c->p, "required");
				return tg_error_set(TG_ERR_INVALID,
						    "%s: \"%s\" is not in properties and additionalProperties is false",
						    c->p->s, name);
			}
		}
	}
	return 0;
}

/* $id: a new base URI and a resource; $anchor: a name in the base. */
static int node_identity(cc *c)
{
	const json_t *id = json_object_get(c->n->json, "$id");
	const json_t *anchor = json_object_get(c->n->json, "$anchor");
	char *uri = NULL;
	int r;
	if (id) {
		const char *t = json_string_value(id), *hash;
		size_t old = tg_spath_key(c->p, "$id");
		if (!json_is_string(id))
			return fail(c, "must be a string");
		hash = strchr(t, '#');
		if (hash && hash[1])
			return fail(c, "must not have a fragment (use $anchor to name a subschema)");
		if (!(uri = tg_suri_resolve(c->n->base, t)))
			return fail(c, "is not a URI reference");
		free(c->n->base);
		c->n->base = uri;
		tg_spath_pop(c->p, old);
	}
	if (anchor && !json_is_string(anchor))
		return 0; /* reported with the keywords */
	r = tg_sref_register(c->s, c->n, id ? c->n->base : NULL,
			     anchor ? json_string_value(anchor) : NULL);
	return r;
}

static tg_snode *node_new(tg_schema *s, const json_t *json, tg_spath *p, const char *base)
{
	tg_snode *n = calloc(1, sizeof(*n));
	if (!n || !(n->where = strdup(p->s)) || !(n->base = strdup(base))) {
		if (n)
			free(n->where);
		free(n);
		tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
		return NULL;
	}
	n->json = json;
	n->boolean = json_is_boolean(json) ? json_is_true(json) : -1;
	n->min_len = n->max_len = n->min_items = n->max_items = -1;
	n->min_props = n->max_props = n->min_contains = n->max_contains = -1;
	if (tg_sschema_add_node(s, n) < 0) {
		tg_snode_free(n);
		return NULL;
	}
	return n;
}

tg_snode *tg_scompile_node(tg_schema *s, const json_t *json, tg_spath *p, const char *base,
			   unsigned depth)
{
	cc c = {s, NULL, p, depth};
	const char *key;
	json_t *v;
	size_t at = p->len;
	if (!json_is_object(json) && !json_is_boolean(json)) {
		tg_error_set(TG_ERR_INVALID, "%s: must be a schema (an object, true or false)", p->s);
		return NULL;
	}
	if (depth >= TG_SCHEMA_MAX_DEPTH) {
		tg_error_set(TG_ERR_LIMIT, "%s: schemas nested deeper than %d levels", p->s,
			     TG_SCHEMA_MAX_DEPTH);
		return NULL;
	}
	if (!(c.n = node_new(s, json, p, base)))
		return NULL;
	if (c.n->boolean >= 0)
		return c.n;
	if (node_identity(&c) < 0)
		return NULL;
	if ((v = json_object_get(json, "type"))) {
		tg_spath_key(p, "type");
		if (check_type(&c, v) < 0)
			return NULL;
		tg_spath_pop(p, at);
	}
	json_object_foreach((json_t *)json, key, v) {
		tg_spath_key(p, key);
		if (check_keyword(&c, key, v) < 0)
			return NULL;
		tg_spath_pop(p, at);
	}
	if (check_consistency(&c) < 0)
		return NULL;
	return c.n;
}

void tg_snode_free(tg_snode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->npprops; i++)
		tg_sregex_free(n->pprops[i].re);
	tg_sregex_free(n->pattern);
	json_decref(n->prop_index);
	free(n->props);
	free(n->pprops);
	free(n->dep_schemas);
	free(n->prefix.v);
	free(n->all_of.v);
	free(n->any_of.v);
	free(n->one_of.v);
	free(n->where);
	free(n->base);
	free(n);
}
