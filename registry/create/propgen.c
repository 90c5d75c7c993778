/*
 * registry/create/propgen.c: the inputs of a submission's property tests,
 * generated from its input_schema (docs/REGISTRY.md, "Property tests").
 * Boundaries first (each property at its minimum and maximum, exclusive
 * bounds, empty and longest strings (at most PROPGEN_MAX_STR code points),
 * empty and longest arrays, each enum and const value, non-ASCII and
 * multi-byte text, optional properties absent and present), then random
 * values, from a generator seeded by the version's content hash, so one
 * version always gets the same inputs. A string with a `pattern` is taken
 * only from the schema's examples, default, const or enum; without them the
 * property is left out and a note says so. Every input is checked against
 * the compiled input_schema and dropped when it does not conform. Also
 * what propbad.c and proptest.c share: a local $ref followed
 * (reg_schema_deref), the formats that can be asserted
 * (reg_propgen_format_known), a short rendering of args (reg_prop_show).
 */

#include <math.h>
#include <string.h>
#include "registry/create/create.h"

#define PROPGEN_MAX_STR 10000   /* code points of one generated string */
#define PROPGEN_MAX_ITEMS 64    /* items of one generated array */
#define PROPGEN_DEPTH 6         /* nesting of generated values */
#define SHOW_CAP 400            /* bytes of args shown in a reason (reg_prop_show) */

typedef struct gen {
	uint64_t s;              /* xorshift64* state */
	const json_t *root;      /* the input_schema, for $ref */
	json_t *notes;           /* strings: what was left out and why */
	json_t *merged;          /* "%p" of a schema with allOf -> its merge (allof()) */
} gen;

static uint64_t rnd(gen *g)
{
	g->s ^= g->s >> 12;
	g->s ^= g->s << 25;
	g->s ^= g->s >> 27;
	return g->s * 2685821657736338717ull;
}

/* A note "WHERE: WHAT", once. */
static void note(gen *g, const char *where, const char *what)
{
	char m[300];
	size_t i;
	json_t *n;

	snprintf(m, sizeof(m), "%s: %s", where, what);
	json_array_foreach(g->notes, i, n) {
		if (strcmp(json_string_value(n), m) == 0)
			return;
	}
	json_array_append_new(g->notes, json_string(m));
}

char *reg_prop_show(const json_t *v)
{
	char *s = tg_json_dump(v);
	size_t n;

	if (!s || strlen(s) <= SHOW_CAP)
		return s;
	n = SHOW_CAP;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	strcpy(s + n, "...");
	return s;
}

const json_t *reg_schema_deref(const json_t *root, const json_t *s)
{
	for (int hops = 0; hops < 8 && json_is_object(s); hops++) {
		const char *ref = json_string_value(json_object_get(s, "$ref"));
		const json_t *t = root;
		if (!ref || ref[0] != '#')
			return s;
		char buf[256], *save = NULL;
		snprintf(buf, sizeof(buf), "%s", ref + 1);
		for (char *p = strtok_r(buf, "/", &save); p && t; p = strtok_r(NULL, "/", &save))
			t = json_object_get(t, p);
		if (!t)
			return s;
		s = t;
	}
	return s;
}

/* Keywords whose values a merge of allOf keeps the largest / smallest of. */
static const char *const merge_max[] = { "minimum", "exclusiveMinimum", "minLength", "minItems",
					 "minProperties", NULL };
static const char *const merge_min[] = { "maximum", "exclusiveMaximum", "maxLength", "maxItems",
					 "maxProperties", NULL };

static int in_list(const char *const *l, const char *k)
{
	for (; *l; l++)
		if (strcmp(*l, k) == 0)
			return 1;
	return 0;
}

/* Merge schema m's keywords into o (allOf): bounds tightened, properties
 * present in both become {"allOf": [a, b]}, required lists joined,
 * "integer" and "number" give "integer"; other keywords: the first wins. */
static void merge_into(json_t *o, const json_t *m)
{
	const char *k;
	json_t *v, *have;

	json_object_foreach((json_t *)m, k, v) {
		have = json_object_get(o, k);
		if (!have) {
			json_object_set_new(o, k, json_deep_copy(v));
		} else if (json_is_number(have) && json_is_number(v) &&
			   (in_list(merge_max, k) || in_list(merge_min, k))) {
			int take = in_list(merge_max, k) ? json_number_value(v) > json_number_value(have)
							 : json_number_value(v) < json_number_value(have);
			if (take)
				json_object_set_new(o, k, json_deep_copy(v));
		} else if (strcmp(k, "properties") == 0 && json_is_object(have)) {
			const char *pk;
			json_t *pv;
			json_object_foreach((json_t *)v, pk, pv) {
				json_t *a = json_object_get(have, pk);
				json_object_set_new(have, pk, a ? json_pack("{s:[OO]}", "allOf", a, pv)
								: json_deep_copy(pv));
			}
		} else if (strcmp(k, "required") == 0 && json_is_array(have)) {
			json_array_extend(have, v);
		} else if (strcmp(k, "type") == 0 && json_is_string(have) && json_is_string(v) &&
			   strcmp(json_string_value(v), "integer") == 0 &&
			   strcmp(json_string_value(have), "number") == 0) {
			json_object_set_new(o, k, json_string("integer"));
		}
	}
}

static const json_t *deref(gen *g, const json_t *s);

/* s with its allOf merged in (once per schema, kept in g->merged), else s. */
static const json_t *allof(gen *g, const json_t *s)
{
	json_t *all = json_object_get(s, "allOf"), *o, *m;
	char key[32];
	size_t i;

	if (!json_is_array(all) || !g->merged)
		return s;
	snprintf(key, sizeof(key), "%p", (const void *)s);
	if ((o = json_object_get(g->merged, key)))
		return o;
	if (!(o = json_deep_copy(s)))
		return s;
	json_object_del(o, "allOf");
	json_array_foreach(all, i, m) {
		const json_t *d = deref(g, m);
		if (json_is_object(d))
			merge_into(o, d);
	}
	json_object_set_new(g->merged, key, o);
	return o;
}

static const json_t *deref(gen *g, const json_t *s)
{
	return allof(g, reg_schema_deref(g->root, s));
}

static json_t *rep_str(const char *unit, size_t n)
{
	size_t ul = strlen(unit);
	char *b = malloc(ul * n + 1);
	json_t *j;

	if (!b)
		return NULL;
	for (size_t i = 0; i < n; i++)
		memcpy(b + i * ul, unit, ul);
	b[ul * n] = 0;
	j = json_string(b);
	free(b);
	return j;
}

static int num_of(const json_t *s, const char *k, double *v)
{
	json_t *j = json_object_get(s, k);
	if (!json_is_number(j))
		return 0;
	*v = json_number_value(j);
	return 1;
}

/* The type a schema asks for (first of a list), guessed from its keywords
 * when it says none. */
static const char *type_of(const json_t *s, size_t pick)
{
	json_t *t = json_object_get(s, "type");
	if (json_is_string(t))
		return json_string_value(t);
	if (json_is_array(t) && json_array_size(t) > 0)
		return json_string_value(json_array_get(t, pick % json_array_size(t)));
	if (json_object_get(s, "properties") || json_object_get(s, "required"))
		return "object";
	if (json_object_get(s, "items") || json_object_get(s, "minItems"))
		return "array";
	if (json_object_get(s, "minimum") || json_object_get(s, "maximum"))
		return "number";
	return "string";
}

static void push(json_t *a, json_t *v)
{
	if (v)
		json_array_append_new(a, v);
}

/* The values a schema names itself: const, enum, default, examples. */
static void named_values(json_t *c, const json_t *s)
{
	json_t *v;
	size_t i;

	if ((v = json_object_get(s, "const")))
		push(c, json_deep_copy(v));
	json_array_foreach(json_object_get(s, "enum"), i, v)
		push(c, json_deep_copy(v));
	if ((v = json_object_get(s, "default")))
		push(c, json_deep_copy(v));
	json_array_foreach(json_object_get(s, "examples"), i, v)
		push(c, json_deep_copy(v));
}

static void int_cands(json_t *c, const json_t *s, int integer)
{
	double lo = -1e300, hi = 1e300, v;
	int bounded_lo = 0, bounded_hi = 0;

	if (num_of(s, "minimum", &v))
		lo = v, bounded_lo = 1;
	if (num_of(s, "exclusiveMinimum", &v) && (!bounded_lo || v >= lo))
		lo = integer ? v + 1 : v + 0.5, bounded_lo = 1;
	if (num_of(s, "maximum", &v))
		hi = v, bounded_hi = 1;
	if (num_of(s, "exclusiveMaximum", &v) && (!bounded_hi || v <= hi))
		hi = integer ? v - 1 : v - 0.5, bounded_hi = 1;
	if (num_of(s, "multipleOf", &v) && v > 0) {
		/* the multiples nearest the bounds, and a few small ones */
		double first = bounded_lo ? ceil(lo / v) * v : v, last = bounded_hi ? floor(hi / v) * v : 3 * v;
		if (fabs(first) < 9e15)
			push(c, integer ? json_integer((json_int_t)first) : json_real(first));
		if (fabs(last) < 9e15)
			push(c, integer ? json_integer((json_int_t)last) : json_real(last));
		push(c, integer ? json_integer((json_int_t)v) : json_real(v));
		push(c, json_integer(0));
		push(c, integer ? json_integer(-(json_int_t)v) : json_real(-v));
		return;
	}
	if (bounded_lo && lo > -9e15)
		push(c, integer ? json_integer((json_int_t)lo) : json_real(lo));
	if (bounded_hi && hi < 9e15)
		push(c, integer ? json_integer((json_int_t)hi) : json_real(hi));
	if (bounded_lo && lo > -9e15)
		push(c, integer ? json_integer((json_int_t)lo + 1) : json_real(lo + 0.25));
	if (bounded_hi && hi < 9e15)
		push(c, integer ? json_integer((json_int_t)hi - 1) : json_real(hi - 0.25));
	push(c, json_integer(0));
	push(c, json_integer(1));
	push(c, json_integer(-1));
	if (!integer)
		push(c, json_real(0.5));
	if (!bounded_hi)
		push(c, json_integer(2147483647));
	if (!bounded_lo)
		push(c, json_integer(-2147483647 - 1));
}

/* Valid values of the formats toolgate can assert (docs/SCHEMA.md), so a
 * string with a format gets realistic inputs whether or not the home
 * asserts it; 0 when the format is not one of them. */
static const char *const fmt_tab[][4] = {
		{ "date", "2024-02-29", "1999-12-31", "0001-01-01" },
		{ "time", "23:59:59Z", "00:00:00+05:30", "12:30:45.123-08:00" },
		{ "date-time", "2024-02-29T23:59:59Z", "1970-01-01T00:00:00+00:00",
		  "2030-06-15t08:00:00.5z" },
		{ "email", "a@example.com", "first.last+tag@sub.example.org", "x@[192.0.2.1]" },
		{ "ipv4", "0.0.0.0", "255.255.255.255", "192.0.2.1" },
		{ "ipv6", "::", "2001:db8::1", "fe80:0:0:0:0:0:0:1" },
		{ "uuid", "00000000-0000-0000-0000-000000000000",
		  "123e4567-e89b-12d3-a456-426614174000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF" },
		{ "uri", "https://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:a@example.com" },
};

static int format_cands(json_t *c, const char *f)
{
	for (size_t i = 0; f && i < sizeof(fmt_tab) / sizeof(*fmt_tab); i++) {
		if (strcmp(f, fmt_tab[i][0]) == 0) {
			for (int k = 1; k < 4; k++)
				push(c, json_string(fmt_tab[i][k]));
			return 1;
		}
	}
	return 0;
}

int reg_propgen_format_known(const char *f)
{
	for (size_t i = 0; f && i < sizeof(fmt_tab) / sizeof(*fmt_tab); i++)
		if (strcmp(f, fmt_tab[i][0]) == 0)
			return 1;
	return 0;
}

static void str_cands(gen *g, json_t *c, const json_t *s, const char *where)
{
	json_int_t minl = json_integer_value(json_object_get(s, "minLength"));
	json_t *mx = json_object_get(s, "maxLength");
	json_int_t maxl = json_is_integer(mx) ? json_integer_value(mx) : 0;

	if (json_object_get(s, "pattern")) {
		/* only what the schema itself names */
		if (json_array_size(c) == 0)
			note(g, where, "a string with a pattern and no examples, default, const "
				       "or enum is not generated");
		return;
	}
	if (format_cands(c, json_string_value(json_object_get(s, "format"))))
		return;
	if (maxl <= 0 || maxl > PROPGEN_MAX_STR)
		maxl = json_is_integer(mx) && json_integer_value(mx) == 0 ? 0 : PROPGEN_MAX_STR;
	if (minl > PROPGEN_MAX_STR)
		minl = PROPGEN_MAX_STR;
	push(c, json_string(""));
	push(c, rep_str("a", (size_t)minl));
	push(c, rep_str("a", (size_t)maxl));
	push(c, rep_str("\xc3\xa9", (size_t)maxl));        /* é: two bytes */
	push(c, rep_str("\xf0\x9f\x98\x80", (size_t)maxl)); /* an emoji: four */
	push(c, json_string("h\xc3\xa9llo w\xc3\xb6rld"));
	push(c, json_string("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80"));
	push(c, json_string(" a\tb\nc \"q\" \\ "));
	push(c, json_string("0"));
}

static json_t *gen_value(gen *g, const json_t *s, int depth, int mode, const char *where);

/* An object: required properties, plus optional ones when all != 0 (or at
 * random when all < 0). NULL when a required one cannot be generated. */
static json_t *gen_object(gen *g, const json_t *s, int depth, int mode, int all)
{
	json_t *props = json_object_get(s, "properties"), *req = json_object_get(s, "required");
	json_t *o = json_object(), *ps;
	const char *k;
	size_t i;
	json_t *rk;

	if (!o)
		return NULL;
	json_object_foreach(props, k, ps) {
		int required = 0;
		json_array_foreach(req, i, rk)
			required |= json_is_string(rk) && strcmp(json_string_value(rk), k) == 0;
		if (!required && (all == 0 || (all < 0 && (rnd(g) & 1))))
			continue;
		json_t *v = gen_value(g, ps, depth + 1, mode, k);
		if (!v) {
			if (required) {
				json_decref(o);
				return NULL;
			}
			continue;
		}
		json_object_set_new(o, k, v);
	}
	return o;
}

/* Candidates of one schema: named values, then its boundaries. */
static json_t *cands(gen *g, const json_t *s, int depth, const char *where)
{
	json_t *c = json_array();
	const char *t;

	s = deref(g, s);
	if (!c)
		return NULL;
	if (json_is_true(s) || (json_is_object(s) && json_object_size(s) == 0)) {
		push(c, json_string("x"));
		push(c, json_integer(0));
		push(c, json_null());
		return c;
	}
	if (!json_is_object(s))
		return c;
	named_values(c, s);
	if (json_object_get(s, "const") || json_object_get(s, "enum"))
		return c;
	json_t *br = json_object_get(s, "anyOf") ? json_object_get(s, "anyOf")
						  : json_object_get(s, "oneOf");
	if (json_is_array(br) && !json_object_get(s, "type")) {
		json_t *b;
		size_t i;
		json_array_foreach(br, i, b) {
			json_t *sub = cands(g, b, depth + 1, where);
			json_array_extend(c, sub);
			json_decref(sub);
		}
		return c;
	}
	for (size_t ti = 0; ti < 4; ti++) {
		t = type_of(s, ti);
		if (!t)
			break;
		if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0)
			int_cands(c, s, strcmp(t, "integer") == 0);
		else if (strcmp(t, "string") == 0)
			str_cands(g, c, s, where);
		else if (strcmp(t, "boolean") == 0)
			push(c, json_true()), push(c, json_false());
		else if (strcmp(t, "null") == 0)
			push(c, json_null());
		else if (strcmp(t, "array") == 0 && depth < PROPGEN_DEPTH) {
			json_t *it = json_object_get(s, "items"), *pre = json_object_get(s, "prefixItems");
			json_int_t mx = json_integer_value(json_object_get(s, "maxItems"));
			json_int_t mn = json_integer_value(json_object_get(s, "minItems"));
			if (mx <= 0 || mx > PROPGEN_MAX_ITEMS)
				mx = PROPGEN_MAX_ITEMS;
			push(c, json_array());
			for (int m = 0; m < 3; m++) {
				json_int_t n = m == 0 ? (mn > 0 ? mn : 1) : m == 1 ? mx : mx / 2;
				json_t *a = json_array();
				if (m == 0 && n < (json_int_t)json_array_size(pre))
					n = (json_int_t)json_array_size(pre); /* the whole prefix once */
				for (json_int_t i = 0; a && i < n && i < PROPGEN_MAX_ITEMS; i++) {
					/* prefixItems position by position, then items */
					const json_t *is = (size_t)i < json_array_size(pre)
								   ? json_array_get(pre, (size_t)i)
							   : it ? it : json_true();
					if (json_is_false(is))
						break;
					json_t *v = gen_value(g, is, depth + 1, m == 1 ? 0 : 1, where);
					if (!v)
						break; /* a hole would shift the prefix */
					json_array_append_new(a, v);
				}
				push(c, a);
			}
		} else if (strcmp(t, "object") == 0 && depth < PROPGEN_DEPTH) {
			push(c, gen_object(g, s, depth, 0, 0));
			push(c, gen_object(g, s, depth, 0, 1));
		}
		if (!json_is_array(json_object_get(s, "type")))
			break;
	}
	return c;
}

/* One value of s: a random one of its candidates (mode 0), or random text
 * or number within its bounds (mode 1). NULL when none can be made. */
static json_t *gen_value(gen *g, const json_t *s, int depth, int mode, const char *where)
{
	_cleanup_json_ json_t *c = NULL;
	const json_t *d = deref(g, s);
	const char *t = json_is_object(d) ? type_of(d, rnd(g)) : NULL;

	if (mode == 1 && t && !json_object_get(d, "pattern") && !json_object_get(d, "format") &&
	    !json_object_get(d, "enum") &&
	    !json_object_get(d, "const") && !json_object_get(d, "anyOf") &&
	    !json_object_get(d, "oneOf")) {
		static const char *const pool[] = { "a", "b", "z", " ", "0", "\xc3\xa9",
						    "\xe2\x82\xac", "\xf0\x9f\x98\x80", "-", "\n" };
		double lo = -1000, hi = 1000, v;
		if (strcmp(t, "string") == 0) {
			json_int_t mn = json_integer_value(json_object_get(d, "minLength"));
			json_t *mxj = json_object_get(d, "maxLength");
			json_int_t mx = json_is_integer(mxj) ? json_integer_value(mxj) : 40;
			if (mx > 40 + mn)
				mx = 40 + mn;
			if (mn > PROPGEN_MAX_STR)
				mn = PROPGEN_MAX_STR;
			if (mx < mn)
				mx = mn;
			size_t n = (size_t)mn + rnd(g) % (size_t)(mx - mn + 1);
			char *b = malloc(n * 4 + 1);
			size_t l = 0;
			if (!b)
				return NULL;
			for (size_t i = 0; i < n; i++) {
				const char *u = pool[rnd(g) % (sizeof(pool) / sizeof(*pool))];
				memcpy(b + l, u, strlen(u));
				l += strlen(u);
			}
			b[l] = 0;
			json_t *j = json_string(b);
			free(b);
			return j;
		}
		if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0) {
			if (num_of(d, "minimum", &v) || num_of(d, "exclusiveMinimum", &v))
				lo = v;
			if (num_of(d, "maximum", &v) || num_of(d, "exclusiveMaximum", &v))
				hi = v;
			if (hi - lo > 2e6)
				hi = lo + 2e6;
			double x = lo + (hi - lo) * (double)(rnd(g) >> 11) / 9007199254740992.0;
			if (num_of(d, "multipleOf", &v) && v > 0)
				x = round(x / v) * v;
			return strcmp(t, "integer") == 0 ? json_integer((json_int_t)x) : json_real(x);
		}
		if (strcmp(t, "object") == 0 && depth < PROPGEN_DEPTH)
			return gen_object(g, d, depth, 1, -1);
	}
	c = cands(g, s, depth, where);
	if (!c || json_array_size(c) == 0)
		return NULL;
	return json_deep_copy(json_array_get(c, rnd(g) % json_array_size(c)));
}

/* A property name a patternProperties key p may match: its literal start
 * (after ^, up to the first special character) and "k". The input made with
 * it is dropped by keep() when it does not conform. */
static void pattern_key(char *out, size_t cap, const char *p)
{
	size_t n = 0;

	if (*p == '^')
		p++;
	for (; *p && !strchr("\\.[](){}|*+?^$", *p) && n + 2 < cap; p++)
		out[n++] = *p;
	/* a quantifier applies to the last literal: leave it out */
	if (n > 0 && *p && strchr("*?{", *p))
		n--;
	out[n++] = 'k';
	out[n] = 0;
}

/* Add v to out when it conforms and is new; consumes v. */
static void keep(json_t *out, const tg_schema *cs, json_t *v, size_t n)
{
	json_t *o;
	size_t i;

	if (!v)
		return;
	if (json_array_size(out) >= n || tg_schema_run(cs, v, "args") < 0) {
		tg_error_clear();
		json_decref(v);
		return;
	}
	json_array_foreach(out, i, o) {
		if (json_equal(o, v)) {
			json_decref(v);
			return;
		}
	}
	json_array_append_new(out, v);
}

int reg_propgen(json_t **out, json_t **notes, const json_t *schema, const char *hash,
		unsigned n, unsigned sflags)
{
	_cleanup_json_ json_t *res = json_array(), *ns = json_array(), *merged = json_object();
	json_t *props, *ps;
	tg_schema *cs = NULL;
	gen g = { 0x9e3779b97f4a7c15ull, schema, ns, merged };
	const char *k;
	unsigned tries;
	int rc;

	*out = *notes = NULL;
	if (!res || !ns || !merged)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (size_t i = 0; hash[i]; i++)
		g.s = (g.s ^ (unsigned char)hash[i]) * 1099511628211ull;
	if (!g.s)
		g.s = 1;
	rc = tg_schema_compile(&cs, schema, "input_schema", TG_SCHEMA_TOP_OBJECT | sflags);
	if (rc < 0)
		return rc;
	schema = deref(&g, schema); /* the top's allOf merged */
	props = json_object_get(schema, "properties");
	/* optional properties absent, then all present */
	keep(res, cs, gen_object(&g, schema, 0, 0, 0), n);
	keep(res, cs, gen_object(&g, schema, 0, 0, 1), n);
	/* each property at each of its boundaries, the others as few as may be */
	json_object_foreach(props, k, ps) {
		_cleanup_json_ json_t *c = cands(&g, ps, 1, k);
		json_t *v;
		size_t i;
		json_array_foreach(c, i, v) {
			json_t *base = gen_object(&g, schema, 0, 0, 0);
			if (!base)
				break;
			json_object_set(base, k, v);
			keep(res, cs, base, n);
		}
	}
	/* a property named after each patternProperties key */
	json_object_foreach(json_object_get(schema, "patternProperties"), k, ps) {
		char name[80];
		json_t *base = gen_object(&g, schema, 0, 0, 0), *v;
		pattern_key(name, sizeof(name), k);
		if (!base)
			break;
		if (!json_object_get(base, name) && (v = gen_value(&g, ps, 1, 0, k)))
			json_object_set_new(base, name, v);
		keep(res, cs, base, n);
	}
	/* random ones; bounded tries, since some schemas reject most of them */
	for (tries = 0; json_array_size(res) < n && tries < n * 8; tries++)
		keep(res, cs, gen_object(&g, schema, 0, tries & 1, -1), n);
	tg_schema_free(cs);
	*out = TG_TAKE_PTR(res);
	*notes = TG_TAKE_PTR(ns);
	return 0;
}
