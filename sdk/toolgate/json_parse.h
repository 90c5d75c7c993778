/*
 * toolgate/json_parse.h: the strict JSON parser (RFC 8259: UTF-8 validated,
 * \u escapes with surrogate pairs decoded to UTF-8, duplicate keys refused,
 * input capped at 1 MiB and nesting at 64): tg_value_parse for any text and
 * tg_tool_read_args for the arguments on stdin. The tg__ functions are its
 * inner steps. Part of the SDK, included by <toolgate/tool.h>.
 */
#ifndef TOOLGATE_JSON_PARSE_H
#define TOOLGATE_JSON_PARSE_H

#include "value.h"

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

#endif
