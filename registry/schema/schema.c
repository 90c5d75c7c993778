/*
 * registry/schema/schema.c: the JSON Schema subset of tool input schemas
 * (registry/schema.h, docs/SCHEMA.md).
 *
 * tg_schema_check() accepts a schema only if every keyword is in the subset
 * (type, properties, required, additionalProperties as a boolean, enum,
 * minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength,
 * items as one schema, minItems, maxItems; description, title, default and
 * $schema as annotations), each keyword is well formed and applicable to the
 * declared type, bounds are consistent, and nesting stays within 32 schema
 * levels; the top is {"type":"object"}. tg_schema_validate() checks a value
 * against a checked schema and names the first violation by its path.
 * "integer" follows JSON Schema: any number with a zero fractional part
 * (1.0 too) that fits a signed 64-bit integer.
 */
#include "registry/schema/schema.h"

#include <string.h>

#define SCHEMA_MAX_DEPTH 32
#define SCHEMA_MAX_LIST 1024 /* enum values, required names (checked pairwise) */
#define PATH_MAX_LEN 480

enum {
	T_OBJECT = 1 << 0,
	T_ARRAY = 1 << 1,
	T_STRING = 1 << 2,
	T_INTEGER = 1 << 3,
	T_NUMBER = 1 << 4,
	T_BOOLEAN = 1 << 5,
	T_NULL = 1 << 6,
};

static const struct {
	const char *name;
	const char *article; /* for messages: "must be a string" */
	int bit;
} type_names[] = {
	{"object", "an object", T_OBJECT},   {"array", "an array", T_ARRAY},
	{"string", "a string", T_STRING},    {"integer", "an integer", T_INTEGER},
	{"number", "a number", T_NUMBER},    {"boolean", "a boolean", T_BOOLEAN},
	{"null", "null", T_NULL},
};

static const char *const keywords[] = {
	"type", "properties", "required", "additionalProperties", "enum",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"minLength", "maxLength", "items", "minItems", "maxItems",
	"description", "title", "default", "$schema", NULL,
};

/* ---- paths in messages -------------------------------------------------- */

typedef struct path {
	char s[PATH_MAX_LEN + 16];
	size_t len;
} path;

static void path_init(path *p, const char *root)
{
	p->len = 0;
	p->s[0] = '\0';
	snprintf(p->s, sizeof(p->s), "%s", root);
	p->len = strlen(p->s);
}

static void path_append(path *p, const char *text, size_t n)
{
	if (p->len + n > PATH_MAX_LEN) {
		if (p->len < PATH_MAX_LEN) {
			memcpy(p->s + p->len, "...", 3);
			p->len += 3;
			p->s[p->len] = '\0';
		}
		return;
	}
	memcpy(p->s + p->len, text, n);
	p->len += n;
	p->s[p->len] = '\0';
}

/* Append ".key" for plain keys, else ["key"] with escapes, truncated. */
static size_t path_push_key(path *p, const char *key)
{
	size_t old = p->len, n = strlen(key), k;
	int plain = n > 0 && n <= 64;
	char buf[200];
	size_t bl = 0;
	for (k = 0; k < n && plain; k++) {
		unsigned char c = (unsigned char)key[k];
		plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			c == '_' || c == '-' || c == '$';
	}
	if (plain) {
		path_append(p, ".", 1);
		path_append(p, key, n);
		return old;
	}
	buf[bl++] = '[';
	buf[bl++] = '"';
	for (k = 0; k < n && bl < 150; k++) {
		unsigned char c = (unsigned char)key[k];
		if (c == '"' || c == '\\') {
			buf[bl++] = '\\';
			buf[bl++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			bl += (size_t)snprintf(buf + bl, sizeof(buf) - bl, "\\u%04x", c);
		} else {
			buf[bl++] = (char)c;
		}
	}
	if (k < n) { /* truncated: do not cut a UTF-8 sequence */
		while (bl > 2 && ((unsigned char)buf[bl - 1] & 0xC0) == 0x80)
			bl--;
		if (bl > 2 && (unsigned char)buf[bl - 1] >= 0xC0)
			bl--;
		memcpy(buf + bl, "...", 3);
		bl += 3;
	}
	buf[bl++] = '"';
	buf[bl++] = ']';
	path_append(p, buf, bl);
	return old;
}

static size_t path_push_index(path *p, size_t i)
{
	size_t old = p->len;
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "[%zu]", i);
	path_append(p, buf, (size_t)n);
	return old;
}

static void path_pop(path *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
}

/* ---- numbers and equality ----------------------------------------------- */

static int real_is_int64(double d)
{
	return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d;
}

static int is_integer(const json_t *v)
{
	return json_is_integer(v) || (json_is_real(v) && real_is_int64(json_real_value(v)));
}

static long double num_ld(const json_t *v)
{
	return json_is_integer(v) ? (long double)json_integer_value(v) : (long double)json_real_value(v);
}

/* -1, 0, 1 for two numbers (exact for int64 on both sides). */
static int num_cmp(const json_t *a, const json_t *b)
{
	if (json_is_integer(a) && json_is_integer(b)) {
		json_int_t x = json_integer_value(a), y = json_integer_value(b);
		return x < y ? -1 : x > y;
	}
	long double x = num_ld(a), y = num_ld(b);
	return x < y ? -1 : x > y;
}

/* JSON Schema equality: numbers by value (1 == 1.0), else structural. */
static int values_equal(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return num_cmp(a, b) == 0;
	if (json_typeof(a) != json_typeof(b))
		return 0;
	switch (json_typeof(a)) {
	case JSON_STRING:
		return json_string_length(a) == json_string_length(b) &&
		       !memcmp(json_string_value(a), json_string_value(b), json_string_length(a));
	case JSON_ARRAY: {
		size_t n = json_array_size(a), i;
		if (n != json_array_size(b))
			return 0;
		for (i = 0; i < n; i++)
			if (!values_equal(json_array_get(a, i), json_array_get(b, i)))
				return 0;
		return 1;
	}
	case JSON_OBJECT: {
		const char *key;
		json_t *v;
		if (json_object_size(a) != json_object_size(b))
			return 0;
		json_object_foreach((json_t *)a, key, v) {
			json_t *w = json_object_get(b, key);
			if (!w || !values_equal(v, w))
				return 0;
		}
		return 1;
	}
	default:
		return 1; /* true, false, null */
	}
}

/* Shortest text of a number for messages. */
static void num_text(char *buf, size_t size, const json_t *v)
{
	if (json_is_integer(v)) {
		snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return;
	}
	double d = json_real_value(v);
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
}

static int value_mask(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return T_OBJECT;
	case JSON_ARRAY: return T_ARRAY;
	case JSON_STRING: return T_STRING;
	case JSON_INTEGER: return T_INTEGER | T_NUMBER;
	case JSON_REAL: return is_integer(v) ? T_INTEGER | T_NUMBER : T_NUMBER;
	case JSON_TRUE:
	case JSON_FALSE: return T_BOOLEAN;
	default: return T_NULL;
	}
}

/* "a string", "a string or null", "an integer, a string or null". */
static void mask_text(char *buf, size_t size, int mask)
{
	size_t n = 0, i, total = 0, seen = 0;
	buf[0] = '\0';
	for (i = 0; i < TG_ARRAY_SIZE(type_names); i++)
		total += (mask & type_names[i].bit) != 0;
	for (i = 0; i < TG_ARRAY_SIZE(type_names) && n < size; i++) {
		if (!(mask & type_names[i].bit))
			continue;
		seen++;
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
				      seen == 1 ? "" : seen == total ? " or " : ", ",
				      type_names[i].article);
	}
}

/* "integer, null": the names of the types in mask (buf of size >= 64). */
static const char *mask_name(char *buf, size_t size, int mask)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < TG_ARRAY_SIZE(type_names) && n < size; i++)
		if (mask & type_names[i].bit)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      type_names[i].name);
	return buf;
}

/* ---- checking a schema -------------------------------------------------- */

static int type_bit(const char *name)
{
	for (size_t i = 0; i < TG_ARRAY_SIZE(type_names); i++)
		if (!strcmp(name, type_names[i].name))
			return type_names[i].bit;
	return 0;
}

/* The declared types of a schema (0 = any); -1 with the error set. */
static int schema_mask(const json_t *schema, path *p)
{
	const json_t *t = json_object_get(schema, "type");
	int mask = 0;
	size_t old, at_type;
	if (!t)
		return 0;
	old = path_push_key(p, "type");
	at_type = p->len;
	if (json_is_string(t)) {
		mask = type_bit(json_string_value(t));
		if (!mask)
			goto bad_name;
	} else if (json_is_array(t) && json_array_size(t) > 0) {
		for (size_t i = 0; i < json_array_size(t); i++) {
			const json_t *e = json_array_get(t, i);
			int bit = json_is_string(e) ? type_bit(json_string_value(e)) : 0;
			path_push_index(p, i);
			if (!bit)
				goto bad_name;
			if (mask & bit) {
				tg_error_set(TG_ERR_INVALID, "%s: duplicate type \"%s\"", p->s,
					     json_string_value(e));
				return -1;
			}
			mask |= bit;
			path_pop(p, at_type);
		}
	} else {
		tg_error_set(TG_ERR_INVALID, "%s: must be a type name or a non-empty array of type names",
			     p->s);
		return -1;
	}
	path_pop(p, old);
	return mask;
bad_name:
	tg_error_set(TG_ERR_INVALID,
		     "%s: must be one of \"object\", \"array\", \"string\", \"integer\", \"number\", "
		     "\"boolean\", \"null\"", p->s);
	return -1;
}

static int is_count(const json_t *v)
{
	return is_integer(v) && num_ld(v) >= 0;
}

static int check_schema(const json_t *schema, path *p, unsigned depth);

/* The keyword-by-keyword check of one schema object. */
static int check_keyword(const char *key, const json_t *v, int mask, path *p, unsigned depth)
{
	static const struct {
		const char *key;
		int needs;
		const char *what;
	} applies[] = {
		{"properties", T_OBJECT, "objects"},   {"required", T_OBJECT, "objects"},
		{"additionalProperties", T_OBJECT, "objects"},
		{"items", T_ARRAY, "arrays"},          {"minItems", T_ARRAY, "arrays"},
		{"maxItems", T_ARRAY, "arrays"},       {"minLength", T_STRING, "strings"},
		{"maxLength", T_STRING, "strings"},    {"minimum", T_INTEGER | T_NUMBER, "numbers"},
		{"maximum", T_INTEGER | T_NUMBER, "numbers"},
		{"exclusiveMinimum", T_INTEGER | T_NUMBER, "numbers"},
		{"exclusiveMaximum", T_INTEGER | T_NUMBER, "numbers"},
	};
	size_t i;
	char types[120];
	for (i = 0; i < TG_ARRAY_SIZE(applies); i++)
		if (mask && !strcmp(key, applies[i].key) && !(mask & applies[i].needs))
			return tg_error_set(TG_ERR_INVALID, "%s: applies only to %s, but type is %s",
					    p->s, applies[i].what, mask_name(types, sizeof(types), mask));

	if (!strcmp(key, "type") || !strcmp(key, "default"))
		return 0; /* type: checked by schema_mask; default: an ignored annotation */
	if (!strcmp(key, "description") || !strcmp(key, "title") || !strcmp(key, "$schema")) {
		if (!json_is_string(v))
			return tg_error_set(TG_ERR_INVALID, "%s: must be a string", p->s);
		return 0;
	}
	if (!strcmp(key, "properties")) {
		const char *name;
		json_t *sub;
		if (!json_is_object(v))
			return tg_error_set(TG_ERR_INVALID, "%s: must be an object of schemas", p->s);
		json_object_foreach((json_t *)v, name, sub) {
			size_t old = path_push_key(p, name);
			int r = check_schema(sub, p, depth + 1);
			if (r < 0)
				return r;
			path_pop(p, old);
		}
		return 0;
	}
	if (!strcmp(key, "required")) {
		if (!json_is_array(v))
			return tg_error_set(TG_ERR_INVALID, "%s: must be an array of property names", p->s);
		if (json_array_size(v) > SCHEMA_MAX_LIST)
			return tg_error_set(TG_ERR_LIMIT, "%s: more than %d names", p->s, SCHEMA_MAX_LIST);
		for (i = 0; i < json_array_size(v); i++) {
			const json_t *e = json_array_get(v, i);
			if (!json_is_string(e)) {
				path_push_index(p, i);
				return tg_error_set(TG_ERR_INVALID, "%s: must be a string", p->s);
			}
			for (size_t j = 0; j < i; j++)
				if (values_equal(json_array_get(v, j), e))
					return tg_error_set(TG_ERR_INVALID, "%s: duplicate name \"%s\"",
							    p->s, json_string_value(e));
		}
		return 0;
	}
	if (!strcmp(key, "additionalProperties")) {
		if (!json_is_boolean(v))
			return tg_error_set(TG_ERR_INVALID,
					    "%s: must be true or false (a schema here is not supported)",
					    p->s);
		return 0;
	}
	if (!strcmp(key, "enum")) {
		if (!json_is_array(v) || json_array_size(v) == 0)
			return tg_error_set(TG_ERR_INVALID, "%s: must be a non-empty array", p->s);
		if (json_array_size(v) > SCHEMA_MAX_LIST)
			return tg_error_set(TG_ERR_LIMIT, "%s: more than %d values", p->s, SCHEMA_MAX_LIST);
		for (i = 0; i < json_array_size(v); i++) {
			const json_t *e = json_array_get(v, i);
			size_t old = path_push_index(p, i);
			if (mask && !(value_mask(e) & mask))
				return tg_error_set(TG_ERR_INVALID, "%s: is not of the schema's type (%s)",
						    p->s, mask_name(types, sizeof(types), mask));
			for (size_t j = 0; j < i; j++)
				if (values_equal(json_array_get(v, j), e))
					return tg_error_set(TG_ERR_INVALID, "%s: duplicate value", p->s);
			path_pop(p, old);
		}
		return 0;
	}
	if (!strcmp(key, "minimum") || !strcmp(key, "maximum")) {
		if (!json_is_number(v))
			return tg_error_set(TG_ERR_INVALID, "%s: must be a number", p->s);
		return 0;
	}
	if (!strcmp(key, "exclusiveMinimum") || !strcmp(key, "exclusiveMaximum")) {
		if (json_is_boolean(v))
			return tg_error_set(TG_ERR_INVALID,
					    "%s: must be a number (the draft-04 boolean form is not supported)",
					    p->s);
		if (!json_is_number(v))
			return tg_error_set(TG_ERR_INVALID, "%s: must be a number", p->s);
		return 0;
	}
	if (!strcmp(key, "minLength") || !strcmp(key, "maxLength") || !strcmp(key, "minItems") ||
	    !strcmp(key, "maxItems")) {
		if (!is_count(v))
			return tg_error_set(TG_ERR_INVALID, "%s: must be a non-negative integer", p->s);
		return 0;
	}
	if (!strcmp(key, "items")) {
		if (json_is_array(v))
			return tg_error_set(TG_ERR_INVALID,
					    "%s: must be one schema object (the tuple form is not supported)",
					    p->s);
		return check_schema(v, p, depth + 1);
	}
	return tg_error_set(TG_ERR_INVALID,
			    "%s: unsupported keyword (supported: type, properties, required, "
			    "additionalProperties, enum, minimum, maximum, exclusiveMinimum, "
			    "exclusiveMaximum, minLength, maxLength, items, minItems, maxItems, "
			    "description, title, default, $schema)", p->s);
}

static int check_bounds(const json_t *schema, path *p, const char *lo, const char *hi)
{
	const json_t *a = json_object_get(schema, lo), *b = json_object_get(schema, hi);
	if (a && b && num_cmp(a, b) > 0)
		return tg_error_set(TG_ERR_INVALID, "%s: %s is greater than %s", p->s, lo, hi);
	return 0;
}

static int check_schema(const json_t *schema, path *p, unsigned depth)
{
	const char *key;
	json_t *v;
	int mask, r;
	if (!json_is_object(schema))
		return tg_error_set(TG_ERR_INVALID, "%s: must be a schema object", p->s);
	if (depth >= SCHEMA_MAX_DEPTH)
		return tg_error_set(TG_ERR_LIMIT, "%s: schemas nested deeper than %d levels", p->s,
				    SCHEMA_MAX_DEPTH);
	json_object_foreach((json_t *)schema, key, v) {
		size_t k;
		for (k = 0; keywords[k] && strcmp(keywords[k], key); k++)
			;
		if (!keywords[k]) {
			path_push_key(p, key);
			return check_keyword(key, v, 0, p, depth); /* the unsupported message */
		}
	}
	mask = schema_mask(schema, p);
	if (mask < 0)
		return TG_ERR_INVALID;
	json_object_foreach((json_t *)schema, key, v) {
		size_t old = path_push_key(p, key);
		r = check_keyword(key, v, mask, p, depth);
		if (r < 0)
			return r;
		path_pop(p, old);
	}
	if (check_bounds(schema, p, "minimum", "maximum") < 0 ||
	    check_bounds(schema, p, "minLength", "maxLength") < 0 ||
	    check_bounds(schema, p, "minItems", "maxItems") < 0)
		return TG_ERR_INVALID;
	if (json_is_false(json_object_get(schema, "additionalProperties"))) {
		const json_t *req = json_object_get(schema, "required");
		const json_t *props = json_object_get(schema, "properties");
		for (size_t i = 0; i < json_array_size(req); i++) {
			const char *name = json_string_value(json_array_get(req, i));
			if (!json_object_get(props, name)) {
				path_push_key(p, "required");
				return tg_error_set(TG_ERR_INVALID,
						    "%s: \"%s\" is not in properties and additionalProperties is false",
						    p->s, name);
			}
		}
	}
	return 0;
}

int tg_schema_check(const json_t *schema)
{
	path p;
	const json_t *t;
	path_init(&p, "input_schema");
	if (!json_is_object(schema))
		return tg_error_set(TG_ERR_INVALID, "input_schema: must be an object");
	t = json_object_get(schema, "type");
	if (!json_is_string(t) || strcmp(json_string_value(t), "object"))
		return tg_error_set(TG_ERR_INVALID,
				    "input_schema.type: must be \"object\" (the arguments are one JSON object)");
	return check_schema(schema, &p, 0);
}

int tg_schema_check_output(const json_t *schema)
{
	path p;
	path_init(&p, "output_schema");
	if (!json_is_object(schema))
		return tg_error_set(TG_ERR_INVALID, "output_schema: must be an object");
	if (!json_is_string(json_object_get(schema, "type")))
		return tg_error_set(TG_ERR_INVALID,
				    "output_schema.type: is required (object, array, string, integer, "
				    "number, boolean or null)");
	return check_schema(schema, &p, 0);
}

/* ---- validating a value -------------------------------------------------- */

static size_t utf8_codepoints(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

static int validate(const json_t *schema, const json_t *value, path *p);

static int validate_number(const json_t *schema, const json_t *value, path *p)
{
	static const struct {
		const char *key;
		int bad_if; /* num_cmp(value, bound) result that violates */
		int or_equal;
		const char *op;
	} bounds[] = {
		{"minimum", -1, 0, ">="},
		{"maximum", 1, 0, "<="},
		{"exclusiveMinimum", -1, 1, ">"},
		{"exclusiveMaximum", 1, 1, "<"},
	};
	for (size_t i = 0; i < TG_ARRAY_SIZE(bounds); i++) {
		const json_t *b = json_object_get(schema, bounds[i].key);
		int c;
		char num[64];
		if (!b)
			continue;
		c = num_cmp(value, b);
		if (c == bounds[i].bad_if || (bounds[i].or_equal && c == 0)) {
			num_text(num, sizeof(num), b);
			return tg_error_set(TG_ERR_INVALID, "%s: must be %s %s", p->s, bounds[i].op, num);
		}
	}
	return 0;
}

static int validate_object(const json_t *schema, const json_t *value, path *p)
{
	const json_t *props = json_object_get(schema, "properties");
	const json_t *req = json_object_get(schema, "required");
	int closed = json_is_false(json_object_get(schema, "additionalProperties"));
	const char *key;
	json_t *v;
	for (size_t i = 0; i < json_array_size(req); i++) {
		const char *name = json_string_value(json_array_get(req, i));
		if (!json_object_get(value, name)) {
			path_push_key(p, name);
			return tg_error_set(TG_ERR_INVALID, "%s: required property is missing", p->s);
		}
	}
	json_object_foreach((json_t *)value, key, v) {
		const json_t *sub = json_object_get(props, key);
		size_t old = path_push_key(p, key);
		if (sub) {
			int r = validate(sub, v, p);
			if (r < 0)
				return r;
		} else if (closed) {
			return tg_error_set(TG_ERR_INVALID,
					    "%s: property not allowed (additionalProperties is false)", p->s);
		}
		path_pop(p, old);
	}
	return 0;
}

static int validate_array(const json_t *schema, const json_t *value, path *p)
{
	const json_t *mn = json_object_get(schema, "minItems"), *mx = json_object_get(schema, "maxItems");
	const json_t *items = json_object_get(schema, "items");
	size_t n = json_array_size(value);
	if (mn && (long double)n < num_ld(mn))
		return tg_error_set(TG_ERR_INVALID, "%s: must have at least %.0Lf item%s", p->s,
				    num_ld(mn), num_ld(mn) == 1 ? "" : "s");
	if (mx && (long double)n > num_ld(mx))
		return tg_error_set(TG_ERR_INVALID, "%s: must have at most %.0Lf item%s", p->s,
				    num_ld(mx), num_ld(mx) == 1 ? "" : "s");
	for (size_t i = 0; items && i < n; i++) {
		size_t old = path_push_index(p, i);
		int r = validate(items, json_array_get(value, i), p);
		if (r < 0)
			return r;
		path_pop(p, old);
	}
	return 0;
}

static int validate_string(const json_t *schema, const json_t *value, path *p)
{
	const json_t *mn = json_object_get(schema, "minLength"), *mx = json_object_get(schema, "maxLength");
	long double n = (long double)utf8_codepoints(json_string_value(value), json_string_length(value));
	if (mn && n < num_ld(mn))
		return tg_error_set(TG_ERR_INVALID, "%s: must be at least %.0Lf character%s long", p->s,
				    num_ld(mn), num_ld(mn) == 1 ? "" : "s");
	if (mx && n > num_ld(mx))
		return tg_error_set(TG_ERR_INVALID, "%s: must be at most %.0Lf character%s long", p->s,
				    num_ld(mx), num_ld(mx) == 1 ? "" : "s");
	return 0;
}

static int validate(const json_t *schema, const json_t *value, path *p)
{
	int mask = 0;
	const json_t *t = json_object_get(schema, "type"), *en = json_object_get(schema, "enum");
	if (json_is_string(t)) {
		mask = type_bit(json_string_value(t));
	} else if (json_is_array(t)) {
		for (size_t i = 0; i < json_array_size(t); i++)
			mask |= type_bit(json_string_value(json_array_get(t, i)));
	}
	if (mask && !(value_mask(value) & mask)) {
		char want[160];
		mask_text(want, sizeof(want), mask);
		return tg_error_set(TG_ERR_INVALID, "%s: must be %s", p->s, want);
	}
	if (en) {
		size_t i, n = json_array_size(en);
		tg_buf list = TG_BUF_INIT(0);
		int r;
		for (i = 0; i < n; i++)
			if (values_equal(json_array_get(en, i), value))
				break;
		if (i < n)
			goto checked_enum;
		for (i = 0; i < n && list.len < 200; i++) {
			char *s = tg_json_dump(json_array_get(en, i));
			if (s)
				tg_buf_printf(&list, "%s%s", i ? ", " : "", s);
			free(s);
		}
		if (i < n)
			tg_buf_puts(&list, ", ...");
		r = tg_error_set(TG_ERR_INVALID, "%s: must be one of %s", p->s, list.ptr ? list.ptr : "");
		tg_buf_free(&list);
		return r;
	}
checked_enum:
	if (json_is_number(value))
		return validate_number(schema, value, p);
	if (json_is_string(value))
		return validate_string(schema, value, p);
	if (json_is_array(value))
		return validate_array(schema, value, p);
	if (json_is_object(value))
		return validate_object(schema, value, p);
	return 0;
}

int tg_schema_validate(const json_t *schema, const json_t *value)
{
	return tg_schema_validate_at(schema, value, "args");
}

int tg_schema_validate_at(const json_t *schema, const json_t *value, const char *root)
{
	path p;
	if (!json_is_object(schema) || !value)
		return tg_error_set(TG_ERR_INTERNAL, "schema validation: no schema or no value");
	path_init(&p, root);
	return validate(schema, value, &p);
}
