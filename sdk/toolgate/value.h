/*
 * toolgate/value.h: the JSON value a tool reads (tg_value, tg_member,
 * tg_tool_args), the limits on its input (1 MiB, nesting 64), tg_tool_fail
 * (one line on stderr, exit status 1), freeing a value, and the small
 * helpers the parser, the writer and the bridge share: growing a buffer and
 * measuring a UTF-8 sequence. Part of the SDK; a tool includes
 * <toolgate/tool.h>, which includes this header.
 */
#ifndef TOOLGATE_VALUE_H
#define TOOLGATE_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define TG_TOOL_MAX_INPUT (1024 * 1024) /* bytes of arguments read from stdin */
#define TG_TOOL_MAX_DEPTH 64            /* nesting of arrays and objects */

/* Print the printf-style message and a newline on stderr, exit status 1. */
#define tg_tool_fail(...) \
	(fflush(stdout), fprintf(stderr, __VA_ARGS__), fputs("\n", stderr), exit(1))

typedef enum tg_type { TG_NULL, TG_BOOL, TG_NUMBER, TG_STRING, TG_ARRAY, TG_OBJECT } tg_type;

typedef struct tg_value tg_value;
typedef struct tg_member tg_member;
struct tg_value {
	tg_type type;
	bool is_int;            /* a number that is integral and fits long long */
	bool int_form;          /* a number written without fraction or exponent */
	size_t len;             /* string bytes, array items or object members */
	union {
		char *str;      /* NUL-terminated; may hold NULs (len counts them) */
		tg_value *items;
		tg_member *members;
	} u;
	double num;             /* numbers */
	long long i;            /* integral numbers; booleans (0/1) */
	const tg_value *parent; /* container holding this value, NULL at the root */
};
struct tg_member {
	tg_value value;         /* first: a value inside an object is its member */
	char *key;
	size_t keylen;
};
typedef tg_value tg_tool_args;

/* ---- values, buffers, UTF-8 ----------------------------------------------- */

static inline bool tg__finite(double d) { return d - d == 0; }

static inline void tg__value_clear(tg_value *v)
{
	size_t k;
	for (k = 0; v->type == TG_ARRAY && k < v->len; k++)
		tg__value_clear(&v->u.items[k]);
	for (k = 0; v->type == TG_OBJECT && k < v->len; k++) {
		tg__value_clear(&v->u.members[k].value);
		free(v->u.members[k].key);
	}
	if (v->type >= TG_STRING)
		free(v->u.str); /* the string, items or members */
	v->type = TG_NULL;
	v->len = 0;
}

static inline void tg_value_free(tg_value *v)
{
	if (v)
		tg__value_clear(v);
	free(v);
}
static inline void tg_tool_args_free(tg_tool_args *a) { tg_value_free(a); }

/* Grow *buf (capacity *cap elements of elem bytes) to hold need elements. */
static inline bool tg__reserve(void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 8;
	void *nb;
	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	if (!(nb = realloc(*buf, c * elem)))
		return false;
	*buf = nb;
	*cap = c;
	return true;
}

/* Length of the valid UTF-8 sequence at s[0..n) (no overlongs, surrogates or
 * code points past U+10FFFF), 0 if invalid. */
static inline size_t tg__utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] < 0xC2 ? 0 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : s[0] < 0xF5 ? 4 : 0;
	unsigned long cp = s[0] & (0x7F >> len), k;
	if (len <= 1 || n < len)
		return len == 1;
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

#endif
