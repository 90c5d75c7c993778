/*
 * toolgate/tool.h: the header-only SDK for toolgate tools.
 *
 * A tool reads its arguments as one JSON object on stdin and writes its
 * result as one JSON value on stdout; exit status 0 is success, anything else
 * is an error whose message is stderr. This header does the JSON on both
 * sides so a tool is a few lines:
 *
 *   tg_tool_args *a = tg_tool_read_args();       // strict parse of stdin
 *   const char *text = tg_arg_str(a, "text", ""); // typed getters, defaults
 *   tg_out_object_begin(); tg_out_key_int("n", 3); tg_out_end();
 *
 * Every failure (bad JSON, wrong argument type, misuse of the writer) ends
 * the tool through tg_tool_fail(): one line on stderr, exit status 1.
 * The parser is strict RFC 8259: UTF-8 validated, \u escapes with surrogate
 * pairs decoded to UTF-8, duplicate keys refused, input capped at 1 MiB and
 * nesting at 64. All functions are static inline and use only the headers
 * and functions that toolgate's analyzer allows (no stdarg.h, no builtins,
 * no attributes, no function pointers but a qsort comparator).
 * Reference: docs/SDK.md.
 */
#ifndef TOOLGATE_TOOL_H
#define TOOLGATE_TOOL_H

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

/* ---- parsing ------------------------------------------------------------ */

typedef struct tg__parser {
	const char *s;
	size_t n, pos, errpos;
	int depth;
	const char *err;
} tg__parser;

/* In a parser function with a fail: label: record the first error, go there. */
#define TG__FAIL(pos, why) \
	do { \
		tg__fail_at(p, pos, why); \
		goto fail; \
	} while (0)

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

static inline bool tg__fail_at(tg__parser *p, size_t pos, const char *why)
{
	if (!p->err) {
		p->err = why;
		p->errpos = pos;
	}
	return false;
}

static inline void tg__skip_ws(tg__parser *p)
{
	char c;
	while (p->pos < p->n && ((c = p->s[p->pos]) == ' ' || c == '\t' || c == '\n' || c == '\r'))
		p->pos++;
}
static inline bool tg__at(const tg__parser *p, char c) { return p->pos < p->n && p->s[p->pos] == c; }
static inline bool tg__digit_at(const tg__parser *p)
{
	return p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9';
}

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

static inline int tg__hex4(const char *s)
{
	int k, v = 0;
	for (k = 0; k < 4; k++) {
		char c = s[k];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static inline size_t tg__utf8_put(char *o, unsigned long cp)
{
	size_t len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4, k;
	static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
	for (k = len - 1; k > 0; k--, cp >>= 6)
		o[k] = (char)(0x80 | (cp & 0x3F));
	o[0] = (char)(lead[len] | cp);
	return len;
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

/* Parse the string at p->pos (on the opening quote) into *out / *outlen. */
static inline bool tg__parse_string(tg__parser *p, char **out, size_t *outlen)
{
	static const char esc[] = "\"\\/bfnrt", unesc[] = "\"\\/\b\f\n\r\t";
	void *raw = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	p->pos++;
	for (;;) {
		size_t start = p->pos, l;
		unsigned char c;
		const char *e;
		int hi, lo = 0;
		if (!tg__reserve(&raw, &cap, len + 5, 1))
			TG__FAIL(p->pos, "out of memory");
		buf = (char *)raw;
		if (p->pos >= p->n)
			TG__FAIL(p->pos, "unterminated string");
		c = (unsigned char)p->s[p->pos];
		if (c == '"')
			break;
		if (c < 0x20)
			TG__FAIL(start, "control character in string (escape it)");
		if (c != '\\') {
			if (!(l = tg__utf8_len((const unsigned char *)p->s + p->pos, p->n - p->pos)))
				TG__FAIL(start, "invalid UTF-8 in string");
			memcpy(buf + len, p->s + p->pos, l);
			len += l;
			p->pos += l;
			continue;
		}
		if (p->pos + 1 >= p->n)
			TG__FAIL(start, "unterminated string");
		c = (unsigned char)p->s[p->pos + 1];
		p->pos += 2;
		if (c && c != 'u' && (e = strchr(esc, c)) != NULL) {
			buf[len++] = unesc[e - esc];
			continue;
		}
		if (c != 'u')
			TG__FAIL(start, "invalid escape in string");
		if (p->n - p->pos < 4 || (hi = tg__hex4(p->s + p->pos)) < 0)
			TG__FAIL(start, "invalid \\u escape (needs 4 hex digits)");
		p->pos += 4;
		if (hi >= 0xDC00 && hi <= 0xDFFF)
			TG__FAIL(start, "unpaired low surrogate in \\u escape");
		if (hi >= 0xD800 && hi <= 0xDBFF) {
			if (p->n - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
			    (lo = tg__hex4(p->s + p->pos + 2)) < 0xDC00 || lo > 0xDFFF)
				TG__FAIL(start, "unpaired high surrogate in \\u escape");
			p->pos += 6;
			hi = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
		}
		len += tg__utf8_put(buf + len, (unsigned long)hi);
	}
	p->pos++;
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return true;
fail:
	free(raw);
	return false;
}

static inline bool tg__parse_number(tg__parser *p, tg_value *v)
{
	size_t start = p->pos, k;
	bool integral = true, neg = tg__at(p, '-');
	unsigned long long acc = 0, lim = 9223372036854775807ULL + neg;
	char small[64], *copy;
	p->pos += neg;
	if (!tg__digit_at(p))
		return tg__fail_at(p, start, "invalid number");
	if (tg__at(p, '0') && p->pos + 1 < p->n && p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9')
		return tg__fail_at(p, start, "invalid number (leading zero)");
	for (; tg__digit_at(p); p->pos++) {
		unsigned d = (unsigned)(p->s[p->pos] - '0');
		if (acc > (lim - d) / 10)
			integral = false; /* past long long: only the double is kept */
		else
			acc = acc * 10 + d;
	}
	v->int_form = !tg__at(p, '.') && !tg__at(p, 'e') && !tg__at(p, 'E');
	if (tg__at(p, '.')) {
		p->pos++;
		if (!tg__digit_at(p))
			return tg__fail_at(p, start, "invalid number (digits expected after '.')");
		while (tg__digit_at(p))
			p->pos++;
	}
	if (tg__at(p, 'e') || tg__at(p, 'E')) {
		p->pos++;
		p->pos += tg__at(p, '+') || tg__at(p, '-');
		if (!tg__digit_at(p))
			return tg__fail_at(p, start, "invalid number (digits expected in exponent)");
		while (tg__digit_at(p))
			p->pos++;
	}
	k = p->pos - start;
	if (!(copy = k < sizeof(small) ? small : (char *)malloc(k + 1)))
		return tg__fail_at(p, start, "out of memory");
	memcpy(copy, p->s + start, k);
	copy[k] = '\0';
	v->num = strtod(copy, NULL);
	if (copy != small)
		free(copy);
	if (!tg__finite(v->num))
		return tg__fail_at(p, start, "number out of range");
	v->type = TG_NUMBER;
	if (integral && v->int_form) {
		v->is_int = true;
		v->i = neg ? (long long)(0 - acc) : (long long)acc;
	} else if (!v->int_form && v->num >= -9223372036854775808.0 && v->num < 9223372036854775808.0 &&
		   (double)(long long)v->num == v->num) {
		v->is_int = true; /* 1.0, 2e3: integral values written as reals; an
				   * overflowing integer literal stays a double */
		v->i = (long long)v->num;
	}
	return true;
}

static inline int tg__member_cmp(const void *a, const void *b)
{
	const tg_member *x = *(const tg_member *const *)a, *y = *(const tg_member *const *)b;
	int c = memcmp(x->key, y->key, x->keylen < y->keylen ? x->keylen : y->keylen);
	return c ? c : x->keylen < y->keylen ? -1 : x->keylen > y->keylen;
}

/* Sort pointers to the members and compare neighbours: 1 duplicate, 0 none,
 * -1 out of memory. */
static inline int tg__has_duplicate(const tg_value *v)
{
	tg_member **idx = (tg_member **)malloc((v->len ? v->len : 1) * sizeof(*idx));
	size_t k;
	int dup = 0;
	if (!idx)
		return -1;
	for (k = 0; k < v->len; k++)
		idx[k] = &v->u.members[k];
	qsort(idx, v->len, sizeof(*idx), tg__member_cmp);
	for (k = 1; k < v->len && !dup; k++)
		dup = tg__member_cmp(&idx[k - 1], &idx[k]) == 0;
	free(idx);
	return dup;
}

static inline bool tg__parse_value(tg__parser *p, tg_value *v);

static inline bool tg__parse_container(tg__parser *p, tg_value *v, bool object)
{
	size_t cap = 0, start = p->pos, elem = object ? sizeof(tg_member) : sizeof(tg_value);
	void *vec = NULL;
	char close = object ? '}' : ']';
	int dup;
	if (++p->depth > TG_TOOL_MAX_DEPTH)
		return tg__fail_at(p, start, "nesting deeper than 64 levels");
	v->type = object ? TG_OBJECT : TG_ARRAY;
	p->pos++;
	tg__skip_ws(p);
	while (!(v->len == 0 && tg__at(p, close))) {
		tg_value *slot;
		tg_member *m = NULL;
		if (!tg__reserve(&vec, &cap, v->len + 1, elem))
			TG__FAIL(p->pos, "out of memory");
		v->u.items = (tg_value *)vec; /* for tg__value_clear on failure */
		if (object) {
			m = (tg_member *)vec + v->len;
			slot = &m->value;
			tg__skip_ws(p);
			if (!tg__at(p, '"'))
				TG__FAIL(p->pos, "expected a string key");
			if (!tg__parse_string(p, &m->key, &m->keylen))
				goto fail;
			tg__skip_ws(p);
			if (!tg__at(p, ':')) {
				free(m->key);
				TG__FAIL(p->pos, "expected ':' after an object key");
			}
			p->pos++;
		} else {
			slot = (tg_value *)vec + v->len;
		}
		if (!tg__parse_value(p, slot)) {
			if (object)
				free(m->key);
			goto fail;
		}
		v->len++;
		tg__skip_ws(p);
		if (tg__at(p, close))
			break;
		if (!tg__at(p, ','))
			TG__FAIL(p->pos, object ? "expected ',' or '}' in object"
					       : "expected ',' or ']' in array");
		p->pos++;
	}
	p->pos++;
	if (cap > v->len && v->len) { /* shrink to fit */
		void *nb = realloc(vec, v->len * elem);
		v->u.items = (tg_value *)(nb ? nb : vec);
	}
	if (object && (dup = tg__has_duplicate(v)) != 0)
		TG__FAIL(start, dup > 0 ? "duplicate key in object" : "out of memory");
	p->depth--;
	return true;
fail:
	tg__value_clear(v); /* the items parsed so far and the vector */
	return false;
}

static inline bool tg__parse_value(tg__parser *p, tg_value *v)
{
	static const char *const words[] = {"true", "false", "null"};
	size_t k, wl;
	char c;
	memset(v, 0, sizeof(*v));
	tg__skip_ws(p);
	if (p->pos >= p->n)
		return tg__fail_at(p, p->pos, "unexpected end of input");
	c = p->s[p->pos];
	if (c == '{' || c == '[')
		return tg__parse_container(p, v, c == '{');
	if (c == '"') {
		v->type = TG_STRING;
		return tg__parse_string(p, &v->u.str, &v->len) || (v->type = TG_NULL, false);
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return tg__parse_number(p, v);
	for (k = 0; k < 3; k++) {
		wl = strlen(words[k]);
		if (p->n - p->pos >= wl && !memcmp(p->s + p->pos, words[k], wl)) {
			v->type = k < 2 ? TG_BOOL : TG_NULL;
			v->i = k == 0;
			p->pos += wl;
			return true;
		}
	}
	return tg__fail_at(p, p->pos, "unexpected character");
}

/* Point every child at its container (after parsing, when nothing moves). */
static inline void tg__link(tg_value *v)
{
	size_t k;
	for (k = 0; v->type == TG_ARRAY && k < v->len; k++) {
		v->u.items[k].parent = v;
		tg__link(&v->u.items[k]);
	}
	for (k = 0; v->type == TG_OBJECT && k < v->len; k++) {
		v->u.members[k].value.parent = v;
		tg__link(&v->u.members[k].value);
	}
}

static inline void tg_value_free(tg_value *v)
{
	if (v)
		tg__value_clear(v);
	free(v);
}
static inline void tg_tool_args_free(tg_tool_args *a) { tg_value_free(a); }

/* Parse exactly one JSON value from text[0..len). NULL on failure, with
 * "line L, column C: why" in err (errsize bytes; err may be NULL). */
static inline tg_value *tg_value_parse(const char *text, size_t len, char *err, size_t errsize)
{
	tg__parser p = {text, len, 0, 0, 0, NULL};
	tg_value *v = (tg_value *)malloc(sizeof(*v));
	size_t line = 1, col = 1, k;
	if (!v)
		p.err = "out of memory";
	else if (len > TG_TOOL_MAX_INPUT)
		p.err = "input larger than 1048576 bytes";
	else if (tg__parse_value(&p, v) && (tg__skip_ws(&p), p.pos == p.n))
		return tg__link(v), v;
	else if (!p.err)
		tg__fail_at(&p, p.pos, "unexpected data after the JSON value");
	tg_value_free(v);
	for (k = 0; k < p.errpos && k < len; k++, col++)
		if (text[k] == '\n')
			line++, col = 0;
	if (err && errsize)
		snprintf(err, errsize, "line %zu, column %zu: %s", line, col, p.err);
	return NULL;
}

/* Read stdin (at most 1 MiB) and parse it as the arguments object; fails
 * the tool on any error. */
static inline tg_tool_args *tg_tool_read_args(void)
{
	size_t n = 0, cap = 0, r;
	void *buf = NULL;
	char err[160];
	tg_value *v;
	do {
		if (!tg__reserve(&buf, &cap, n + 65536, 1))
			tg_tool_fail("toolgate tool: out of memory reading the arguments");
		n += r = fread((char *)buf + n, 1, cap - n, stdin);
	} while (r > 0 && n <= TG_TOOL_MAX_INPUT);
	if (ferror(stdin))
		tg_tool_fail("toolgate tool: cannot read the arguments from stdin");
	if (n > TG_TOOL_MAX_INPUT)
		tg_tool_fail("toolgate tool: arguments larger than %d bytes", TG_TOOL_MAX_INPUT);
	v = tg_value_parse((const char *)buf, n, err, sizeof(err));
	free(buf);
	if (!v)
		tg_tool_fail("toolgate tool: invalid JSON arguments: %s", err);
	if (v->type != TG_OBJECT)
		tg_tool_fail("toolgate tool: the arguments must be a JSON object");
	return v;
}

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

/* ---- writing the result ------------------------------------------------- *
 * A checked streaming writer: commas, keys and nesting are tracked, and a
 * misuse (value without key in an object, two top-level values, unbalanced
 * ends, non-finite numbers, invalid UTF-8) fails the tool. tg_out_end()
 * closes whatever is open and flushes. */

typedef struct tg__out_state {
	int depth;
	bool object[TG_TOOL_MAX_DEPTH + 1]; /* per level: object (else array) */
	size_t count[TG_TOOL_MAX_DEPTH + 1];
	bool have_key, done, ended;
} tg__out_state;

static inline tg__out_state *tg__out(void)
{
	static tg__out_state state;
	return &state;
}

static inline void tg__out_value_start(const char *fn)
{
	tg__out_state *o = tg__out();
	if (o->done)
		tg_tool_fail("%s: the result is already complete (one JSON value only)", fn);
	if (o->depth > 0 && o->object[o->depth] && !o->have_key)
		tg_tool_fail("%s: a value inside an object needs tg_out_key first", fn);
	if (o->depth > 0 && !o->object[o->depth] && o->count[o->depth] > 0)
		putchar(',');
	o->count[o->depth]++;
	o->have_key = false;
}

/* Write text as one complete value (a scalar). */
static inline void tg__out_scalar(const char *text, const char *fn)
{
	tg__out_value_start(fn);
	fputs(text, stdout);
	tg__out()->done = tg__out()->depth == 0;
}

static inline void tg__out_string(const char *s, size_t n, const char *fn)
{
	static const char hex[] = "0123456789abcdef";
	size_t k, l;
	putchar('"');
	for (k = 0; k < n; k += l) {
		unsigned char c = (unsigned char)s[k];
		l = 1;
		if (c >= 0x80 && !(l = tg__utf8_len((const unsigned char *)s + k, n - k)))
			tg_tool_fail("%s: invalid UTF-8 in string", fn);
		if (c >= 0x80)
			fwrite(s + k, 1, l, stdout);
		else if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n' || c == '\r' || c == '\t')
			printf("\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		else if (c < 0x20 || c == 0x7f)
			printf("\\u00%c%c", hex[c >> 4], hex[c & 15]);
		else
			putchar(c);
	}
	putchar('"');
}

static inline void tg__out_open(bool object, const char *fn)
{
	tg__out_state *o = tg__out();
	tg__out_value_start(fn);
	if (o->depth >= TG_TOOL_MAX_DEPTH)
		tg_tool_fail("%s: result nested deeper than 64 levels", fn);
	o->depth++;
	o->object[o->depth] = object;
	o->count[o->depth] = 0;
	putchar(object ? '{' : '[');
}

static inline void tg__out_close(bool object, const char *fn)
{
	tg__out_state *o = tg__out();
	if (o->depth == 0 || o->object[o->depth] != object)
		tg_tool_fail("%s: no open %s to end", fn, object ? "object" : "array");
	if (o->have_key)
		tg_tool_fail("%s: the last key has no value", fn);
	putchar(object ? '}' : ']');
	o->done = --o->depth == 0;
}

static inline void tg_out_object_begin(void) { tg__out_open(true, "tg_out_object_begin"); }
static inline void tg_out_object_end(void) { tg__out_close(true, "tg_out_object_end"); }
static inline void tg_out_array_begin(void) { tg__out_open(false, "tg_out_array_begin"); }
static inline void tg_out_array_end(void) { tg__out_close(false, "tg_out_array_end"); }

/* A key of keylen bytes (NULs allowed). */
static inline void tg_out_keyn(const char *key, size_t keylen)
{
	tg__out_state *o = tg__out();
	if (o->depth == 0 || !o->object[o->depth] || o->have_key)
		tg_tool_fail("tg_out_key: a key is only allowed directly inside an object, before its value");
	if (o->count[o->depth] > 0)
		putchar(',');
	tg__out_string(key, keylen, "tg_out_key");
	putchar(':');
	o->have_key = true;
}
static inline void tg_out_key(const char *key) { tg_out_keyn(key, strlen(key)); }

static inline void tg_out_strn(const char *s, size_t len)
{
	tg__out_value_start("tg_out_str");
	tg__out_string(s, len, "tg_out_str");
	tg__out()->done = tg__out()->depth == 0;
}
static inline void tg_out_null(void) { tg__out_scalar("null", "tg_out_null"); }
static inline void tg_out_bool(bool b) { tg__out_scalar(b ? "true" : "false", "tg_out_bool"); }
/* NULL writes null. */
static inline void tg_out_str(const char *s) { s ? tg_out_strn(s, strlen(s)) : tg_out_null(); }
static inline void tg_out_int(long long n)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%lld", n);
	tg__out_scalar(buf, "tg_out_int");
}
/* Shortest "%g" form that reads back as the same double, always with a
 * fraction or exponent ("2.0", not "2"): JSON comparison in toolgate tests
 * (jansson's json_equal) tells the integer 2 from the real 2.0, so integers
 * are written with tg_out_int and reals with tg_out_num. */
static inline void tg_out_num(double x)
{
	char buf[40];
	int prec;
	if (!tg__finite(x))
		tg_tool_fail("tg_out_num: not a finite number (JSON has no NaN or infinity)");
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	tg__out_scalar(buf, "tg_out_num");
}
/* Write a parsed value (e.g. echo an argument). */
static inline void tg_out_value(const tg_value *v)
{
	size_t k;
	tg_type t = tg_value_type(v);
	if (t == TG_NULL)
		tg_out_null();
	else if (t == TG_BOOL)
		tg_out_bool(v->i != 0);
	else if (t == TG_NUMBER && v->is_int && v->int_form)
		tg_out_int(v->i);
	else if (t == TG_NUMBER)
		tg_out_num(v->num);
	else if (t == TG_STRING)
		tg_out_strn(v->u.str, v->len);
	else
		tg__out_open(t == TG_OBJECT, t == TG_OBJECT ? "tg_out_object_begin" : "tg_out_array_begin");
	for (k = 0; t >= TG_ARRAY && k < v->len; k++) {
		if (t == TG_OBJECT)
			tg_out_keyn(v->u.members[k].key, v->u.members[k].keylen);
		tg_out_value(tg_value_at(v, k));
	}
	if (t >= TG_ARRAY)
		tg__out_close(t == TG_OBJECT, t == TG_OBJECT ? "tg_out_object_end" : "tg_out_array_end");
}

static inline void tg_out_key_str(const char *key, const char *s) { tg_out_key(key); tg_out_str(s); }
static inline void tg_out_key_strn(const char *key, const char *s, size_t n) { tg_out_key(key); tg_out_strn(s, n); }
static inline void tg_out_key_int(const char *key, long long n) { tg_out_key(key); tg_out_int(n); }
static inline void tg_out_key_num(const char *key, double x) { tg_out_key(key); tg_out_num(x); }
static inline void tg_out_key_bool(const char *key, bool b) { tg_out_key(key); tg_out_bool(b); }
static inline void tg_out_key_null(const char *key) { tg_out_key(key); tg_out_null(); }
static inline void tg_out_key_value(const char *key, const tg_value *v) { tg_out_key(key); tg_out_value(v); }

/* Close every open array/object, end the line, flush; fails the tool when
 * nothing was written, a key lacks its value, or stdout cannot be written.
 * A second call does nothing. */
static inline void tg_out_end(void)
{
	tg__out_state *o = tg__out();
	if (o->ended)
		return;
	if (o->have_key)
		tg_tool_fail("tg_out_end: the last key has no value");
	while (o->depth > 0)
		tg__out_close(o->object[o->depth], "tg_out_end");
	if (!o->done)
		tg_tool_fail("tg_out_end: no result was written");
	putchar('\n');
	o->ended = true;
	if (fflush(stdout) != 0 || ferror(stdout))
		tg_tool_fail("toolgate tool: cannot write the result to stdout");
}

/* ---- calling other tools (the bridge, docs/BRIDGE.md) ----------------------
 *
 *   tg_args a = TG_ARGS_INIT;
 *   tg_args_str(&a, "text", "one two");
 *   tg_value *res;
 *   if (tg_call_tool("word_count", tg_args_json(&a), &res) == 0)
 *       words = tg_arg_int(res, "words", 0);
 *   tg_value_free(res); tg_args_free(&a);
 *
 * A call is one frame on fd 3 (4-byte big-endian length, then
 * {"id","tool","args"}) and one reply; toolgate checks every call (declared
 * in the manifest's "calls", within limits.max_tool_calls, ...). Only these
 * functions touch fd 3: the analyzer refuses read, write, close and dup in a
 * tool's own code. */

#define TG_CALL_MAX_FRAME (1024 * 1024)

/* The two system calls the bridge needs, declared here (unistd.h is not an
 * allowed header); the analyzer allows them only in this header. */
long read(int fd, void *buf, size_t n);
long write(int fd, const void *buf, size_t n);

static inline bool tg__bridge_put(const void *buf, size_t n)
{
	const char *b = (const char *)buf;
	while (n > 0) {
		long k = write(3, b, n);
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

static inline bool tg__bridge_get(void *buf, size_t n)
{
	char *b = (char *)buf;
	while (n > 0) {
		long k = read(3, b, n);
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

typedef struct tg_args {
	char *s;
	size_t len, cap;
	bool oom;
} tg_args;
#define TG_ARGS_INIT { NULL, 0, 0, false }

static inline void tg__args_put(tg_args *a, const char *s, size_t n)
{
	if (a->oom || !tg__reserve((void **)&a->s, &a->cap, a->len + n + 2, 1)) {
		a->oom = true;
		return;
	}
	memcpy(a->s + a->len, s, n);
	a->len += n;
	a->s[a->len] = '\0';
}

static inline void tg__args_string(tg_args *a, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	tg__args_put(a, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
		if (c == '"' || c == '\\') {
			e[1] = (char)c;
			tg__args_put(a, e, 2);
		} else if (c < 0x20) {
			tg__args_put(a, e, 6);
		} else {
			tg__args_put(a, (const char *)&c, 1);
		}
	}
	tg__args_put(a, "\"", 1);
}

static inline void tg__args_key(tg_args *a, const char *key)
{
	tg__args_put(a, a->len ? "," : "{", 1);
	tg__args_string(a, key);
	tg__args_put(a, ":", 1);
}

static inline void tg_args_str(tg_args *a, const char *key, const char *v) { tg__args_key(a, key); tg__args_string(a, v); }
static inline void tg_args_int(tg_args *a, const char *key, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	tg__args_key(a, key);
	tg__args_put(a, buf, strlen(buf));
}
static inline void tg_args_bool(tg_args *a, const char *key, bool v) { tg__args_key(a, key); tg__args_put(a, v ? "true" : "false", v ? 4 : 5); }
/* json: one JSON value, written as is (toolgate checks the whole request) */
static inline void tg_args_raw(tg_args *a, const char *key, const char *json) { tg__args_key(a, key); tg__args_put(a, json, strlen(json)); }
/* The arguments object so far ("{}" when empty); NULL when out of memory. */
static inline const char *tg_args_json(tg_args *a)
{
	if (a->len == 0)
		tg__args_put(a, "{", 1);
	if (a->oom)
		return NULL;
	a->s[a->len] = '}';
	a->s[a->len + 1] = '\0';
	return a->s;
}
static inline void tg_args_free(tg_args *a) { free(a->s); a->s = NULL; a->len = a->cap = 0; a->oom = false; }

/* Call tool name ("word_count", "host:NAME") with args_json (one JSON
 * object; NULL means {}). 0: *result is the callee's result value. -1:
 * *result is the error object {"code","message"} (codes in docs/BRIDGE.md),
 * or NULL when the bridge itself failed (no fd 3: the tool declares no
 * calls; the run is ending). Free *result with tg_value_free. */
static inline int tg_call_tool(const char *name, const char *args_json, tg_value **result)
{
	static long long next_id = 0;
	tg_args req = TG_ARGS_INIT;
	unsigned char hdr[4];
	size_t n, k;
	char *buf;
	tg_value *reply, *out = NULL;
	const tg_value *id;
	int rc = -1;

	*result = NULL;
	tg_args_int(&req, "id", ++next_id);
	tg_args_str(&req, "tool", name);
	tg_args_raw(&req, "args", args_json ? args_json : "{}");
	if (!tg_args_json(&req) || req.len + 1 > TG_CALL_MAX_FRAME) {
		tg_args_free(&req);
		return -1;
	}
	n = req.len + 1;
	hdr[0] = (unsigned char)(n >> 24);
	hdr[1] = (unsigned char)(n >> 16);
	hdr[2] = (unsigned char)(n >> 8);
	hdr[3] = (unsigned char)n;
	if (!tg__bridge_put(hdr, 4) || !tg__bridge_put(req.s, n)) {
		tg_args_free(&req);
		return -1;
	}
	tg_args_free(&req);
	if (!tg__bridge_get(hdr, 4))
		return -1;
	n = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8 | hdr[3];
	if (n == 0 || n > TG_CALL_MAX_FRAME || !(buf = (char *)malloc(n)))
		return -1;
	if (!tg__bridge_get(buf, n)) {
		free(buf);
		return -1;
	}
	reply = tg_value_parse(buf, n, NULL, 0);
	free(buf);
	id = tg_value_get(reply, "id");
	if (reply && reply->type == TG_OBJECT && id && id->is_int && id->i == next_id) {
		for (k = 0; k < reply->len; k++) {
			tg_member *m = &reply->u.members[k];
			if (strcmp(m->key, "result") != 0 && strcmp(m->key, "error") != 0)
				continue;
			out = (tg_value *)malloc(sizeof(*out));
			if (out) {
				/* move the member's value out of the reply */
				*out = m->value;
				out->parent = NULL;
				m->value.type = TG_NULL;
				tg__link(out);
				rc = strcmp(m->key, "result") == 0 ? 0 : -1;
			}
			break;
		}
	}
	tg_value_free(reply);
	*result = out;
	return out ? rc : -1;
}

#endif
