/*
 * toolgate/json_get.h: reading a parsed value: its type, length, members
 * and items, its path below the root for messages, checked conversions
 * (tg_value_str, tg_value_int, ...), the arguments' members with defaults
 * (tg_arg_str, tg_arg_int, ...) and array items (tg_item_*). A value of
 * the wrong type fails the tool, naming its path. Part of the SDK, included
 * by <toolgate/tool.h>.
 */
#ifndef TOOLGATE_JSON_GET_H
#define TOOLGATE_JSON_GET_H

#include "value.h"

/* ---- reading values ----------------------------------------------------- */

static inline tg_type tg_value_type(const tg_value *v) { return v ? v->type : TG_NULL; }
/* String bytes, array items or object members; 0 for anything else. */
static inline size_t tg_value_len(const tg_value *v) { return v && v->type >= TG_STRING ? v->len : 0; }
/* The member named key of an object; NULL if absent or v is no object. */
static inline const tg_value *tg_value_get(const tg_value *v, const char *key)
{
	size_t k, kl = strlen(key);
	for (k = 0; v && v->type == TG_OBJECT && k < v->len; k++)
		if (v->u.members[k].keylen == kl && !memcmp(v->u.members[k].key, key, kl))
			return &v->u.members[k].value;
	return NULL;
}
/* Item i of an array, or the value of member i of an object; else NULL. */
static inline const tg_value *tg_value_at(const tg_value *v, size_t i)
{
	if (!v || i >= v->len || v->type < TG_ARRAY)
		return NULL;
	return v->type == TG_ARRAY ? &v->u.items[i] : &v->u.members[i].value;
}
/* Key of member i of an object (NUL-terminated), else NULL. */
static inline const char *tg_value_key(const tg_value *v, size_t i)
{
	return v && v->type == TG_OBJECT && i < v->len ? v->u.members[i].key : NULL;
}

/* Where v sits below the root, e.g. "points[2].x" (the root is "arguments"). */
static inline const char *tg_value_path(const tg_value *v, char *buf, size_t size)
{
	const tg_value *chain[TG_TOOL_MAX_DEPTH + 2];
	size_t n = 0, used = 0;
	int w = 0;
	for (; v && v->parent && n < TG_TOOL_MAX_DEPTH + 1; v = v->parent)
		chain[n++] = v;
	snprintf(buf, size, "%s", n ? "" : "arguments");
	while (n-- > 0 && w >= 0 && used < size) {
		const tg_value *c = chain[n], *par = c->parent;
		const tg_member *m = (const tg_member *)(const void *)c; /* when par is an object */
		if (par->type == TG_ARRAY)
			w = snprintf(buf + used, size - used, "[%zu]", (size_t)(c - par->u.items));
		else
			w = snprintf(buf + used, size - used, "%s%.*s", used ? "." : "",
				     m->keylen > 64 ? 64 : (int)m->keylen, m->key);
		used += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

static inline void tg__type_fail(const tg_value *v, const char *want)
{
	static const char *const names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
	char path[256];
	if (!v)
		tg_tool_fail("missing value (expected %s)", want);
	tg_tool_fail("%s: must be %s, not %s", tg_value_path(v, path, sizeof(path)), want, names[v->type]);
}

/* Checked conversions: they fail the tool, naming the value's path, when v
 * is NULL or of another type. */
static inline const char *tg_value_strn(const tg_value *v, size_t *len)
{
	if (!v || v->type != TG_STRING)
		tg__type_fail(v, "a string");
	if (len)
		*len = v->len;
	return v->u.str;
}
static inline const char *tg_value_str(const tg_value *v)
{
	char path[256];
	size_t len;
	const char *s = tg_value_strn(v, &len);
	if (strlen(s) != len)
		tg_tool_fail("%s: contains a NUL character (use tg_value_strn)", tg_value_path(v, path, sizeof(path)));
	return s;
}
static inline double tg_value_num(const tg_value *v)
{
	if (!v || v->type != TG_NUMBER)
		tg__type_fail(v, "a number");
	return v->num;
}
static inline long long tg_value_int(const tg_value *v)
{
	char path[256];
	if (!v || v->type != TG_NUMBER)
		tg__type_fail(v, "an integer");
	if (!v->is_int)
		tg_tool_fail("%s: must be an integer (within 64 bits)", tg_value_path(v, path, sizeof(path)));
	return v->i;
}
static inline bool tg_value_bool(const tg_value *v)
{
	if (!v || v->type != TG_BOOL)
		tg__type_fail(v, "a boolean");
	return v->i != 0;
}

/* ---- arguments: members of an object, with defaults ---------------------
 * An absent member or a JSON null gives the default (obj may be NULL, e.g.
 * an absent nested object); a member of another type fails the tool. */

static inline const tg_value *tg__arg(const tg_value *obj, const char *key)
{
	const tg_value *v = tg_value_get(obj, key);
	return v && v->type != TG_NULL ? v : NULL;
}
static inline bool tg_arg_has(const tg_value *obj, const char *key) { return tg__arg(obj, key) != NULL; }
/* The member, failing the tool when it is absent or null. */
static inline const tg_value *tg_arg_need(const tg_value *obj, const char *key)
{
	const tg_value *v = tg__arg(obj, key);
	if (!v)
		tg_tool_fail("%s: missing required argument", key);
	return v;
}
static inline const char *tg_arg_str(const tg_value *obj, const char *key, const char *def)
{
	return tg__arg(obj, key) ? tg_value_str(tg__arg(obj, key)) : def;
}
/* Raw string bytes (NULs allowed) and their length; NULL (length 0) when absent. */
static inline const char *tg_arg_strn(const tg_value *obj, const char *key, size_t *len)
{
	if (!tg__arg(obj, key) && len)
		*len = 0;
	return tg__arg(obj, key) ? tg_value_strn(tg__arg(obj, key), len) : NULL;
}
static inline long long tg_arg_int(const tg_value *obj, const char *key, long long def)
{
	return tg__arg(obj, key) ? tg_value_int(tg__arg(obj, key)) : def;
}
static inline double tg_arg_num(const tg_value *obj, const char *key, double def)
{
	return tg__arg(obj, key) ? tg_value_num(tg__arg(obj, key)) : def;
}
static inline bool tg_arg_bool(const tg_value *obj, const char *key, bool def)
{
	return tg__arg(obj, key) ? tg_value_bool(tg__arg(obj, key)) : def;
}
/* An array or object member; NULL when absent. */
static inline const tg_value *tg__arg_typed(const tg_value *obj, const char *key, tg_type t, const char *want)
{
	const tg_value *v = tg__arg(obj, key);
	if (v && v->type != t)
		tg__type_fail(v, want);
	return v;
}
static inline const tg_value *tg_arg_array(const tg_value *obj, const char *key)
{
	return tg__arg_typed(obj, key, TG_ARRAY, "an array");
}
static inline const tg_value *tg_arg_object(const tg_value *obj, const char *key)
{
	return tg__arg_typed(obj, key, TG_OBJECT, "an object");
}
static inline size_t tg_arg_array_len(const tg_value *obj, const char *key)
{
	return tg_value_len(tg_arg_array(obj, key));
}

/* Items of an array: fail the tool when i is out of range or of another type. */
static inline const tg_value *tg_item(const tg_value *arr, size_t i)
{
	char path[256];
	if (!arr || arr->type != TG_ARRAY)
		tg__type_fail(arr, "an array");
	if (i >= arr->len)
		tg_tool_fail("%s: no item %zu (length %zu)", tg_value_path(arr, path, sizeof(path)), i, arr->len);
	return &arr->u.items[i];
}
static inline const char *tg_item_str(const tg_value *arr, size_t i) { return tg_value_str(tg_item(arr, i)); }
static inline long long tg_item_int(const tg_value *arr, size_t i) { return tg_value_int(tg_item(arr, i)); }
static inline double tg_item_num(const tg_value *arr, size_t i) { return tg_value_num(tg_item(arr, i)); }
static inline bool tg_item_bool(const tg_value *arr, size_t i) { return tg_value_bool(tg_item(arr, i)); }

#endif
