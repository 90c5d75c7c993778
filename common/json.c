/*
 * common/json.c: the one way every module reads untrusted JSON. jansson does
 * the parsing with duplicate keys rejected; a cheap pre-scan caps nesting
 * before jansson recurses, and the input size is capped before anything is
 * read. Typed getters give uniform "key: must be a T" messages.
 */
#include "common.h"

#include <string.h>

#define TG_JSON_DEFAULT_MAX_BYTES ((size_t)1 << 20)
#define TG_JSON_DEFAULT_MAX_DEPTH 64

static void limits_of(const tg_json_limits *lim, size_t *max_bytes, size_t *max_depth)
{
	*max_bytes = lim && lim->max_bytes ? lim->max_bytes : TG_JSON_DEFAULT_MAX_BYTES;
	*max_depth = lim && lim->max_depth ? lim->max_depth : TG_JSON_DEFAULT_MAX_DEPTH;
}

/* Nesting depth of the raw text, skipping strings; stops early past max. */
static size_t scan_depth(const char *s, size_t len, size_t max)
{
	size_t depth = 0, deepest = 0, i;
	int in_str = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > deepest)
				deepest = depth;
			if (deepest > max)
				return deepest;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return deepest;
}

int tg_json_parse(json_t **out, const char *data, size_t len, const tg_json_limits *lim)
{
	size_t max_bytes, max_depth;
	json_error_t err;
	json_t *v;

	*out = NULL;
	limits_of(lim, &max_bytes, &max_depth);
	if (len > max_bytes)
		return tg_error_set(TG_ERR_LIMIT, "JSON input of %zu bytes exceeds the limit of %zu", len, max_bytes);
	/* jansson stops at a raw NUL after a number ("[1\0,2]" reads as [1,2]) */
	if (memchr(data, '\0', len))
		return tg_error_set(TG_ERR_INVALID, "invalid JSON: raw NUL byte in input");
	if (scan_depth(data, len, max_depth) > max_depth)
		return tg_error_set(TG_ERR_LIMIT, "JSON nesting deeper than %zu", max_depth);
	v = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
	if (!v) {
		/* jansson's "near '...'" may cut a multi-byte character or quote
		 * control bytes of the input: make it one valid, printable line */
		char text[sizeof(err.text) * 4];
		tg_str_printable(text, sizeof(text), err.text, sizeof(err.text));
		tg_str_utf8_repair(text);
		return tg_error_set(TG_ERR_INVALID, "invalid JSON at line %d column %d: %s",
				    err.line, err.column, text);
	}
	*out = v;
	return 0;
}

int tg_json_parse_file(json_t **out, const char *path, const tg_json_limits *lim)
{
	_cleanup_free_ char *data = NULL;
	size_t max_bytes, max_depth, len;
	int r;

	*out = NULL;
	limits_of(lim, &max_bytes, &max_depth);
	r = tg_file_read(&data, &len, path, max_bytes);
	if (r < 0)
		return r;
	r = tg_json_parse(out, data, len, lim);
	if (r < 0)
		return tg_error_prefix("%s", path);
	return 0;
}

size_t tg_json_depth(const json_t *v)
{
	size_t deepest = 0, d, i;
	const char *key;
	json_t *child;

	if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			d = tg_json_depth(child);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, child) {
			d = tg_json_depth(child);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	return 1;
}

/* jansson's text with every real respelled shortest (jsonnum.c) */
static char *dump_flags(const json_t *v, size_t flags)
{
	_cleanup_free_ char *raw = json_dumps(v, flags | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);

	return raw ? tg_json_shorten_reals(raw) : NULL;
}

char *tg_json_dump(const json_t *v)
{
	return dump_flags(v, JSON_COMPACT);
}

char *tg_json_dump_pretty(const json_t *v)
{
	return dump_flags(v, JSON_INDENT(2));
}

int tg_json_print(FILE *f, const json_t *v, int pretty)
{
	_cleanup_free_ char *d = pretty ? tg_json_dump_pretty(v) : tg_json_dump(v);
	/* DEL, C1 and bidi controls as \uXXXX: the same JSON, safe on a terminal */
	_cleanup_free_ char *s = d ? tg_term_json_escape(d) : NULL;
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "cannot serialize JSON");
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF)
		return tg_error_set(TG_ERR_IO, "cannot write output");
	return 0;
}

static int get_typed(json_t **out, const json_t *obj, const char *key, int required,
		     int type, const char *tname)
{
	json_t *v;

	if (!json_is_object(obj))
		return tg_error_set(TG_ERR_INVALID, "expected a JSON object");
	v = json_object_get(obj, key);
	if (!v) {
		if (required)
			return tg_error_set(TG_ERR_INVALID, "%s: is required", key);
		*out = NULL;
		return 0;
	}
	if ((int)json_typeof(v) != type && !(type == JSON_TRUE && json_is_boolean(v)))
		return tg_error_set(TG_ERR_INVALID, "%s: must be %s", key, tname);
	*out = v;
	return 1;
}

int tg_json_get_string(const char **out, const json_t *obj, const char *key, int required)
{
	json_t *v = NULL;
	int r = get_typed(&v, obj, key, required, JSON_STRING, "a string");
	if (r > 0)
		*out = json_string_value(v);
	return r < 0 ? r : 0;
}

int tg_json_get_int(int64_t *out, const json_t *obj, const char *key, int required)
{
	json_t *v = NULL;
	int r = get_typed(&v, obj, key, required, JSON_INTEGER, "an integer");
	if (r > 0)
		*out = json_integer_value(v);
	return r < 0 ? r : 0;
}

int tg_json_get_bool(int *out, const json_t *obj, const char *key, int required)
{
	json_t *v = NULL;
	int r = get_typed(&v, obj, key, required, JSON_TRUE, "a boolean");
	if (r > 0)
		*out = json_is_true(v);
	return r < 0 ? r : 0;
}

int tg_json_get_object(json_t **out, const json_t *obj, const char *key, int required)
{
	json_t *v = NULL;
	int r = get_typed(&v, obj, key, required, JSON_OBJECT, "an object");
	if (r > 0)
		*out = v;
	return r < 0 ? r : 0;
}

int tg_json_get_array(json_t **out, const json_t *obj, const char *key, int required)
{
	json_t *v = NULL;
	int r = get_typed(&v, obj, key, required, JSON_ARRAY, "an array");
	if (r > 0)
		*out = v;
	return r < 0 ? r : 0;
}

int tg_json_check_keys(const json_t *obj, const char *const *allowed, const char *what)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return tg_error_set(TG_ERR_INVALID, "%s: must be an object", what);
	json_object_foreach((json_t *)obj, key, v) {
		size_t i;
		int ok = 0;
		for (i = 0; allowed[i]; i++) {
			if (strcmp(key, allowed[i]) == 0) {
				ok = 1;
				break;
			}
		}
		if (!ok) {
			char shown[300];
			tg_str_printable(shown, sizeof(shown), key, 64);
			return tg_error_set(TG_ERR_INVALID, "%s: unknown key \"%s\"", what, shown);
		}
	}
	return 0;
}
