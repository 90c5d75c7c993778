/*
 * registry/schema/schema_util.c: what every file of the schema module
 * stands on: paths in messages, numbers, types and equality of JSON values,
 * and the compiled schema's node list. Paths write plain keys as ".key",
 * others as ["a b"] with JSON escapes cut at 150 bytes, array positions as
 * [3]. Numbers compare exactly (two integers as 64-bit integers, else as
 * long double) and "integer" is any number with a zero fractional part that
 * fits 64 bits. It calls nothing else of the module.
 */
#include "registry/schema/schema_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *article; /* for messages: "must be a string" */
	int bit;
} type_names[] = {
	{"object", "an object", TG_T_OBJECT},   {"array", "an array", TG_T_ARRAY},
	{"string", "a string", TG_T_STRING},    {"integer", "an integer", TG_T_INTEGER},
	{"number", "a number", TG_T_NUMBER},    {"boolean", "a boolean", TG_T_BOOLEAN},
	{"null", "null", TG_T_NULL},
};

/* ---- paths in messages -------------------------------------------------- */

void tg_spath_init(tg_spath *p, const char *root)
{
	snprintf(p->s, sizeof(p->s), "%s", root);
	p->len = strlen(p->s);
}

static void path_append(tg_spath *p, const char *text, size_t n)
{
	if (p->len + n > TG_SPATH_MAX) {
		if (p->len < TG_SPATH_MAX) {
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
size_t tg_spath_key(tg_spath *p, const char *key)
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

size_t tg_spath_index(tg_spath *p, size_t i)
{
	size_t old = p->len;
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "[%zu]", i);
	path_append(p, buf, (size_t)n);
	return old;
}

void tg_spath_pop(tg_spath *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
}

/* ---- numbers, types and equality ----------------------------------------- */

static int real_is_int64(double d)
{
	return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d;
}

int tg_sjson_is_int(const json_t *v)
{
	return json_is_integer(v) || (json_is_real(v) && real_is_int64(json_real_value(v)));
}

long double tg_sjson_ld(const json_t *v)
{
	return json_is_integer(v) ? (long double)json_integer_value(v) : (long double)json_real_value(v);
}

int tg_sjson_cmp(const json_t *a, const json_t *b)
{
	if (json_is_integer(a) && json_is_integer(b)) {
		json_int_t x = json_integer_value(a), y = json_integer_value(b);
		return x < y ? -1 : x > y;
	}
	long double x = tg_sjson_ld(a), y = tg_sjson_ld(b);
	return x < y ? -1 : x > y;
}

/* JSON Schema equality: numbers by value (1 == 1.0), else structural. */
int tg_sjson_equal(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return tg_sjson_cmp(a, b) == 0;
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
			if (!tg_sjson_equal(json_array_get(a, i), json_array_get(b, i)))
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
			if (!w || !tg_sjson_equal(v, w))
				return 0;
		}
		return 1;
	}
	default:
		return 1; /* true, false, null */
	}
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static uint64_t bytes_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* A hash consistent with tg_sjson_equal (for uniqueItems). */
uint64_t tg_sjson_hash(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_INTEGER:
		return mix((uint64_t)json_integer_value(v));
	case JSON_REAL: {
		double d = json_real_value(v);
		uint64_t bits;
		if (real_is_int64(d))
			return mix((uint64_t)(int64_t)d);
		memcpy(&bits, &d, sizeof(bits));
		return mix(bits ^ 0x5bd1e995ULL);
	}
	case JSON_STRING:
		return mix(bytes_hash(json_string_value(v), json_string_length(v)) + 3);
	case JSON_ARRAY: {
		uint64_t h = 7;
		for (size_t i = 0; i < json_array_size(v); i++)
			h = mix(h * 31 + tg_sjson_hash(json_array_get(v, i)));
		return h;
	}
	case JSON_OBJECT: {
		uint64_t h = 11;
		const char *key;
		json_t *m;
		json_object_foreach((json_t *)v, key, m) /* order-independent */
			h += mix(bytes_hash(key, strlen(key)) ^ tg_sjson_hash(m));
		return mix(h);
	}
	case JSON_TRUE: return 13;
	case JSON_FALSE: return 17;
	default: return 19;
	}
}

/* Shortest text of a number for messages. */
void tg_sjson_num_text(char *buf, size_t size, const json_t *v)
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

int tg_stype_bit(const char *name)
{
	for (size_t i = 0; i < TG_ARRAY_SIZE(type_names); i++)
		if (!strcmp(name, type_names[i].name))
			return type_names[i].bit;
	return 0;
}

int tg_svalue_mask(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return TG_T_OBJECT;
	case JSON_ARRAY: return TG_T_ARRAY;
	case JSON_STRING: return TG_T_STRING;
	case JSON_INTEGER: return TG_T_INTEGER | TG_T_NUMBER;
	case JSON_REAL: return tg_sjson_is_int(v) ? TG_T_INTEGER | TG_T_NUMBER : TG_T_NUMBER;
	case JSON_TRUE:
	case JSON_FALSE: return TG_T_BOOLEAN;
	default: return TG_T_NULL;
	}
}

/* "a string", "a string or null", "an integer, a string or null". */
void tg_smask_text(char *buf, size_t size, int mask)
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

/* "integer, null": the names of the types in mask. */
const char *tg_smask_name(char *buf, size_t size, int mask)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < TG_ARRAY_SIZE(type_names) && n < size; i++)
		if (mask & type_names[i].bit)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      type_names[i].name);
	return buf;
}

/* ---- the compiled schema -------------------------------------------------- */

int tg_sschema_add_node(tg_schema *s, tg_snode *n)
{
	if (s->nnodes >= TG_SCHEMA_MAX_NODES)
		return tg_error_set(TG_ERR_LIMIT, "%s: more than %d schemas in the document", n->where,
				    TG_SCHEMA_MAX_NODES);
	if (s->nnodes == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		tg_snode **v = realloc(s->nodes, cap * sizeof(*v));
		if (!v)
			return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
		s->nodes = v;
		s->cap = cap;
	}
	s->nodes[s->nnodes++] = n;
	return 0;
}

tg_snode *tg_sschema_find(const tg_schema *s, const json_t *json)
{
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i]->json == json)
			return s->nodes[i];
	return NULL;
}

