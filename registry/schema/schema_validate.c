/*
 * registry/schema/schema_validate.c: validating a value against a compiled
 * schema. Each node applies, in this order, type, enum, const, the number
 * and string assertions (format only under TG_SCHEMA_ASSERT_FORMAT), the
 * object and array keywords (below, with unevaluated*), the in-place applicators
 * ($ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas) and last
 * unevaluatedProperties/unevaluatedItems. Validation stops at the first
 * violation and names it by its path in the value ("args.n: must be >= 1").
 * Inside anyOf, oneOf, not and if, failures are expected: they are counted
 * quietly (no message is formatted). Which members and items were evaluated
 * is tracked (tg_seval, a bit per member or item) only under a schema that
 * has an unevaluated* keyword. A validation is bounded in nesting, in schema
 * applications and in time; a limit is TG_ERR_LIMIT, never a result that
 * `not` could turn into success.
 */
#include "registry/schema/schema_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int tg_sfail(tg_sctx *c, const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	if (c->quiet)
		return TG_ERR_INVALID;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tg_error_set(TG_ERR_INVALID, "%s: %s", c->path.s, msg);
}

/* ---- evaluated members and items ------------------------------------------ */

void tg_seval_mark(uint8_t *bits, size_t i)
{
	bits[i / 8] |= (uint8_t)(1u << (i % 8));
}

int tg_seval_has(const uint8_t *bits, size_t i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

int tg_seval_init(tg_seval *e, const json_t *v)
{
	memset(e, 0, sizeof(*e));
	if (json_is_object(v)) {
		e->nprops = json_object_size(v);
		e->props = calloc(e->nprops / 8 + 1, 1);
		return e->props ? 0 : tg_error_set(TG_ERR_NOMEM, "schema validation: out of memory");
	}
	if (json_is_array(v)) {
		e->nitems = json_array_size(v);
		e->items = calloc(e->nitems / 8 + 1, 1);
		return e->items ? 0 : tg_error_set(TG_ERR_NOMEM, "schema validation: out of memory");
	}
	return 0;
}

void tg_seval_merge(tg_seval *into, const tg_seval *from)
{
	for (size_t i = 0; into->props && from->props && i < into->nprops / 8 + 1; i++)
		into->props[i] |= from->props[i];
	for (size_t i = 0; into->items && from->items && i < into->nitems / 8 + 1; i++)
		into->items[i] |= from->items[i];
}

void tg_seval_free(tg_seval *e)
{
	free(e->props);
	free(e->items);
	memset(e, 0, sizeof(*e));
}

/* ---- scalars ---------------------------------------------------------------- */

static size_t utf8_codepoints(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

static int is_multiple(const json_t *v, const json_t *m)
{
	long double q, x = tg_sjson_ld(v), d = tg_sjson_ld(m);
	if (json_is_integer(v) && json_is_integer(m))
		return json_integer_value(v) % json_integer_value(m) == 0;
	q = x / d;
	if (!isfinite((double)q))
		return 0;
	return fabsl(q - roundl(q)) <= fabsl(q) * 1e-12L;
}

static int validate_number(tg_sctx *c, const tg_snode *n, const json_t *v)
{
	const struct {
		const json_t *bound;
		int bad_if; /* tg_sjson_cmp(value, bound) result that violates */
		int or_equal;
		const char *op;
	} bounds[] = {
		{n->minimum, -1, 0, ">="},
		{n->maximum, 1, 0, "<="},
		{n->xminimum, -1, 1, ">"},
		{n->xmaximum, 1, 1, "<"},
	};
	char num[64];
	for (size_t i = 0; i < TG_ARRAY_SIZE(bounds); i++) {
		int cmp;
		if (!bounds[i].bound)
			continue;
		cmp = tg_sjson_cmp(v, bounds[i].bound);
		if (cmp == bounds[i].bad_if || (bounds[i].or_equal && cmp == 0)) {
			tg_sjson_num_text(num, sizeof(num), bounds[i].bound);
			return tg_sfail(c, "must be %s %s", bounds[i].op, num);
		}
	}
	if (n->multiple && !is_multiple(v, n->multiple)) {
		tg_sjson_num_text(num, sizeof(num), n->multiple);
		return tg_sfail(c, "must be a multiple of %s", num);
	}
	return 0;
}

static int validate_string(tg_sctx *c, const tg_snode *n, const json_t *v)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);
	if (n->min_len >= 0 || n->max_len >= 0) {
		int64_t cp = (int64_t)utf8_codepoints(s, len);
		if (n->min_len >= 0 && cp < n->min_len)
			return tg_sfail(c, "must be at least %lld character%s long", (long long)n->min_len,
					n->min_len == 1 ? "" : "s");
		if (n->max_len >= 0 && cp > n->max_len)
			return tg_sfail(c, "must be at most %lld character%s long", (long long)n->max_len,
					n->max_len == 1 ? "" : "s");
	}
	if (n->pattern) {
		int m = tg_sregex_match(n->pattern, s, len);
		if (m < 0)
			return tg_error_prefix("%s", c->path.s);
		if (!m)
			return tg_sfail(c, "must match the pattern \"%.200s\"", tg_sregex_source(n->pattern));
	}
	if (n->format && (c->s->flags & TG_SCHEMA_ASSERT_FORMAT) && !tg_sformat_check(n->format, s, len))
		return tg_sfail(c, "must be a valid %s (format)", tg_sformat_name(n->format));
	return 0;
}

static int fail_not_in(tg_sctx *c, const json_t *list, const json_t *one)
{
	tg_buf text = TG_BUF_INIT(0);
	size_t i, n = list ? json_array_size(list) : 1;
	int r;
	if (c->quiet)
		return TG_ERR_INVALID;
	for (i = 0; i < n && text.len < 200; i++) {
		char *s = tg_json_dump(list ? json_array_get(list, i) : one);
		if (s && strlen(s) > 200)
			strcpy(s + 197, "...");
		if (s)
			tg_buf_printf(&text, "%s%s", i ? ", " : "", s);
		free(s);
	}
	if (i < n)
		tg_buf_puts(&text, ", ...");
	r = tg_sfail(c, "must be %s%s", list ? "one of " : "", text.ptr ? text.ptr : "");
	tg_buf_free(&text);
	return r;
}

static int validate_scalar(tg_sctx *c, const tg_snode *n, const json_t *v)
{
	if (n->types && !(tg_svalue_mask(v) & n->types)) {
		char want[160];
		tg_smask_text(want, sizeof(want), n->types);
		return tg_sfail(c, "must be %s", want);
	}
	if (n->enum_v) {
		size_t i, k = json_array_size(n->enum_v);
		for (i = 0; i < k && !tg_sjson_equal(json_array_get(n->enum_v, i), v); i++)
			;
		if (i == k)
			return fail_not_in(c, n->enum_v, NULL);
	}
	if (n->const_v && !tg_sjson_equal(n->const_v, v))
		return fail_not_in(c, NULL, n->const_v);
	if (json_is_number(v))
		return validate_number(c, n, v);
	if (json_is_string(v))
		return validate_string(c, n, v);
	return 0;
}

/* ---- in-place applicators ---------------------------------------------------- */

/* Apply sub to v quietly; on success merge what it evaluated into ev. */
static int try_sub(tg_sctx *c, const tg_snode *sub, const json_t *v, tg_seval *ev)
{
	tg_seval mine;
	int r;
	if (ev && (r = tg_seval_init(&mine, v)) < 0)
		return r;
	c->quiet++;
	r = tg_svalidate_node(c, sub, v, ev ? &mine : NULL);
	c->quiet--;
	if (r == 0 && ev)
		tg_seval_merge(ev, &mine);
	if (ev)
		tg_seval_free(&mine);
	return r;
}

/* The message of a failed anyOf/oneOf: why its first schema did not match. */
static int fail_none(tg_sctx *c, const tg_slist *l, const char *kw, const json_t *v)
{
	char why[700];
	int r;
	if (c->quiet)
		return TG_ERR_INVALID;
	r = tg_svalidate_node(c, l->v[0], v, NULL);
	if (r != TG_ERR_INVALID)
		return r < 0 ? r : tg_sfail(c, "must match a schema of %s", kw);
	snprintf(why, sizeof(why), "%.600s", tg_error_last()->message);
	return tg_sfail(c, "must match %s schema of %s (%s[0]: %s)",
			kw[0] == 'o' ? "exactly one" : "at least one", kw, kw, why);
}

static int apply_any_one(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	size_t i, first = 0, matches = 0;
	int r;
	for (i = 0; i < n->any_of.n; i++) {
		if ((r = try_sub(c, n->any_of.v[i], v, ev)) == 0) {
			matches++;
			if (!ev)
				break; /* the rest could only add annotations */
		} else if (r != TG_ERR_INVALID) {
			return r;
		}
	}
	if (n->any_of.n && !matches)
		return fail_none(c, &n->any_of, "anyOf", v);
	matches = 0;
	for (i = 0; i < n->one_of.n; i++) {
		tg_seval mine;
		if (ev && (r = tg_seval_init(&mine, v)) < 0)
			return r;
		r = try_sub(c, n->one_of.v[i], v, ev ? &mine : NULL);
		if (r == 0 && ++matches == 1) {
			first = i;
			if (ev)
				tg_seval_merge(ev, &mine);
		}
		if (ev)
			tg_seval_free(&mine);
		if (r < 0 && r != TG_ERR_INVALID)
			return r;
		if (matches > 1)
			return tg_sfail(c, "must match exactly one schema of oneOf (matches oneOf[%zu] and "
					   "oneOf[%zu])", first, i);
	}
	if (n->one_of.n && !matches)
		return fail_none(c, &n->one_of, "oneOf", v);
	return 0;
}

static int apply_inplace(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	int r;
	if (n->ref && (r = tg_svalidate_node(c, n->ref, v, ev)) < 0)
		return r;
	for (size_t i = 0; i < n->all_of.n; i++)
		if ((r = tg_svalidate_node(c, n->all_of.v[i], v, ev)) < 0)
			return r;
	if ((r = apply_any_one(c, n, v, ev)) < 0)
		return r;
	if (n->not_) {
		r = try_sub(c, n->not_, v, NULL);
		if (r == 0)
			return tg_sfail(c, "must not match the schema of not");
		if (r != TG_ERR_INVALID)
			return r;
	}
	if (n->if_) {
		r = try_sub(c, n->if_, v, ev);
		if (r == 0 && n->then_ && (r = tg_svalidate_node(c, n->then_, v, ev)) < 0)
			return r;
		if (r == TG_ERR_INVALID && n->else_ && (r = tg_svalidate_node(c, n->else_, v, ev)) < 0)
			return r;
		if (r < 0 && r != TG_ERR_INVALID)
			return r;
	}
	for (size_t i = 0; i < n->ndep && json_is_object(v); i++)
		if (json_object_get(v, n->dep_schemas[i].name) &&
		    (r = tg_svalidate_node(c, n->dep_schemas[i].node, v, ev)) < 0)
			return r;
	return 0;
}

/* ---- one node --------------------------------------------------------------- */

static int budget(tg_sctx *c)
{
	if (c->depth >= TG_SCHEMA_MAX_STACK)
		return tg_error_set(TG_ERR_LIMIT, "%s: schemas applied more than %d levels deep",
				    c->path.s, TG_SCHEMA_MAX_STACK);
	if (++c->steps > TG_SCHEMA_MAX_STEPS)
		return tg_error_set(TG_ERR_LIMIT, "%s: validation needs more than %ld schema "
				    "applications", c->path.s, TG_SCHEMA_MAX_STEPS);
	if ((c->steps & 1023) == 0 && tg_now_ms() > c->deadline)
		return tg_error_set(TG_ERR_LIMIT, "%s: validation takes longer than %d ms", c->path.s,
				    TG_SCHEMA_MAX_MS);
	return 0;
}

static int node_body(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	int r;
	if ((r = validate_scalar(c, n, v)) < 0)
		return r;
	if (json_is_object(v) && (r = tg_sapply_object(c, n, v, ev)) < 0)
		return r;
	if (json_is_array(v) && (r = tg_sapply_array(c, n, v, ev)) < 0)
		return r;
	if ((r = apply_inplace(c, n, v, ev)) < 0)
		return r;
	if (n->uneval)
		return tg_sapply_uneval(c, n, v, ev);
	return 0;
}

int tg_svalidate_node(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	tg_seval mine;
	size_t at = c->path.len;
	int r;
	if ((r = budget(c)) < 0)
		return r;
	if (n->boolean >= 0)
		return n->boolean ? 0 : tg_sfail(c, "not allowed (the schema is false)");
	c->depth++;
	if (ev || n->uneval) {
		/* what this schema evaluates, handed up only if it holds */
		if ((r = tg_seval_init(&mine, v)) == 0) {
			r = node_body(c, n, v, &mine);
			if (r == 0 && ev)
				tg_seval_merge(ev, &mine);
			tg_seval_free(&mine);
		}
	} else {
		r = node_body(c, n, v, NULL);
	}
	c->depth--;
	tg_spath_pop(&c->path, at); /* a failure leaves its path pushed: the message has it */
	return r;
}

int tg_schema_run(const tg_schema *s, const json_t *value, const char *root)
{
	tg_sctx c;
	if (!s || !value)
		return tg_error_set(TG_ERR_INTERNAL, "schema validation: no schema or no value");
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.deadline = tg_now_ms() + TG_SCHEMA_MAX_MS;
	tg_spath_init(&c.path, root);
	return tg_svalidate_node(&c, s->root, value, NULL);
}

/* ---- the applicators of objects and arrays (and unevaluated*) ---------------- */
/* the object and array keywords of one
 * schema node applied to a value (schema_validate.c calls them).
 * Objects: minProperties/maxProperties, required, dependentRequired, then
 * each member in the value's order through properties, patternProperties
 * and additionalProperties, then propertyNames. Arrays: minItems/maxItems,
 * prefixItems and items, contains with minContains/maxContains, and
 * uniqueItems (sorted by a hash, so a long array costs n log n, not n^2).
 * unevaluatedProperties/unevaluatedItems apply last, to what no other
 * keyword of the schema (or of its in-place subschemas) evaluated. */

/* Validate member/item v at the pushed path; marks bit i of bits. */
static int child(tg_sctx *c, const tg_snode *n, const json_t *v, uint8_t *bits, size_t i)
{
	int r = tg_svalidate_node(c, n, v, NULL);
	if (r == 0 && bits)
		tg_seval_mark(bits, i);
	return r;
}

static int object_counts(tg_sctx *c, const tg_snode *n, const json_t *v)
{
	int64_t size = (int64_t)json_object_size(v);
	if (n->min_props >= 0 && size < n->min_props)
		return tg_sfail(c, "must have at least %lld propert%s", (long long)n->min_props,
				n->min_props == 1 ? "y" : "ies");
	if (n->max_props >= 0 && size > n->max_props)
		return tg_sfail(c, "must have at most %lld propert%s", (long long)n->max_props,
				n->max_props == 1 ? "y" : "ies");
	for (size_t i = 0; i < json_array_size(n->required); i++) {
		const char *name = json_string_value(json_array_get(n->required, i));
		if (!json_object_get(v, name)) {
			size_t old = tg_spath_key(&c->path, name);
			int r = tg_sfail(c, "required property is missing");
			tg_spath_pop(&c->path, old);
			return r;
		}
	}
	if (n->dep_required) {
		const char *key;
		json_t *names;
		json_object_foreach((json_t *)n->dep_required, key, names) {
			if (!json_object_get(v, key))
				continue;
			for (size_t i = 0; i < json_array_size(names); i++) {
				const char *name = json_string_value(json_array_get(names, i));
				if (!json_object_get(v, name)) {
					size_t old = tg_spath_key(&c->path, name);
					int r = tg_sfail(c, "required property is missing (dependentRequired: "
							    "\"%.100s\" is present)", key);
					tg_spath_pop(&c->path, old);
					return r;
				}
			}
		}
	}
	return 0;
}

static int one_member(tg_sctx *c, const tg_snode *n, const char *key, const json_t *m,
		      uint8_t *bits, size_t k)
{
	const json_t *at = n->prop_index ? json_object_get(n->prop_index, key) : NULL;
	int matched = 0, r;
	if (at) {
		matched = 1;
		if ((r = child(c, n->props[json_integer_value(at)].node, m, bits, k)) < 0)
			return r;
	}
	for (size_t i = 0; i < n->npprops; i++) {
		int hit = tg_sregex_match(n->pprops[i].re, key, strlen(key));
		if (hit < 0)
			return tg_error_prefix("%s", c->path.s);
		if (hit) {
			matched = 1;
			if ((r = child(c, n->pprops[i].node, m, bits, k)) < 0)
				return r;
		}
	}
	if (matched || !n->additional)
		return 0;
	if (n->additional->boolean == 0)
		return tg_sfail(c, "property not allowed (additionalProperties is false)");
	return child(c, n->additional, m, bits, k);
}

static int property_names(tg_sctx *c, const tg_snode *n, const json_t *v)
{
	const char *key;
	json_t *m;
	json_object_foreach((json_t *)v, key, m) {
		json_t *name = json_string(key);
		size_t old = tg_spath_key(&c->path, key);
		int r;
		if (!name)
			return tg_error_set(TG_ERR_NOMEM, "schema validation: out of memory");
		c->quiet++;
		r = tg_svalidate_node(c, n->prop_names, name, NULL);
		c->quiet--;
		json_decref(name);
		if (r == TG_ERR_INVALID)
			r = tg_sfail(c, "property name not allowed by propertyNames");
		if (r < 0)
			return r;
		tg_spath_pop(&c->path, old);
		(void)m;
	}
	return 0;
}

int tg_sapply_object(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	const char *key;
	json_t *m;
	size_t k = 0;
	int r;
	if ((r = object_counts(c, n, v)) < 0)
		return r;
	if (n->nprops || n->npprops || n->additional) {
		json_object_foreach((json_t *)v, key, m) {
			size_t old = tg_spath_key(&c->path, key);
			if ((r = one_member(c, n, key, m, ev ? ev->props : NULL, k++)) < 0)
				return r;
			tg_spath_pop(&c->path, old);
		}
	}
	if (n->prop_names)
		return property_names(c, n, v);
	return 0;
}

/* ---- arrays ------------------------------------------------------------------ */

typedef struct hashed {
	uint64_t h;
	size_t i;
} hashed;

static int hashed_cmp(const void *a, const void *b)
{
	const hashed *x = a, *y = b;
	return x->h < y->h ? -1 : x->h > y->h ? 1 : x->i < y->i ? -1 : x->i > y->i;
}

static int unique_items(tg_sctx *c, const json_t *v)
{
	size_t n = json_array_size(v), i, j;
	hashed *h;
	int r = 0;
	if (n < 2)
		return 0;
	if (!(h = malloc(n * sizeof(*h))))
		return tg_error_set(TG_ERR_NOMEM, "schema validation: out of memory");
	for (i = 0; i < n; i++)
		h[i] = (hashed){tg_sjson_hash(json_array_get(v, i)), i};
	qsort(h, n, sizeof(*h), hashed_cmp);
	for (i = 0; i < n && r == 0; i++)
		for (j = i + 1; j < n && h[j].h == h[i].h && r == 0; j++)
			if (tg_sjson_equal(json_array_get(v, h[i].i), json_array_get(v, h[j].i))) {
				size_t old = tg_spath_index(&c->path, h[j].i);
				r = tg_sfail(c, "duplicate of item [%zu] (uniqueItems)", h[i].i);
				tg_spath_pop(&c->path, old);
			}
	free(h);
	return r;
}

static int contains(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	int64_t found = 0, lo = n->min_contains >= 0 ? n->min_contains : 1, hi = n->max_contains;
	for (size_t i = 0; i < json_array_size(v); i++) {
		int r;
		c->quiet++;
		r = tg_svalidate_node(c, n->contains, json_array_get(v, i), NULL);
		c->quiet--;
		if (r == 0) {
			found++;
			if (ev)
				tg_seval_mark(ev->items, i);
		} else if (r != TG_ERR_INVALID) {
			return r;
		}
	}
	if (found < lo)
		return tg_sfail(c, "must contain at least %lld item%s that match contains (it has %lld)",
				(long long)lo, lo == 1 ? "" : "s", (long long)found);
	if (hi >= 0 && found > hi)
		return tg_sfail(c, "must contain at most %lld item%s that match contains (it has %lld)",
				(long long)hi, hi == 1 ? "" : "s", (long long)found);
	return 0;
}

int tg_sapply_array(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	size_t size = json_array_size(v), i;
	int r;
	if (n->min_items >= 0 && (int64_t)size < n->min_items)
		return tg_sfail(c, "must have at least %lld item%s", (long long)n->min_items,
				n->min_items == 1 ? "" : "s");
	if (n->max_items >= 0 && (int64_t)size > n->max_items)
		return tg_sfail(c, "must have at most %lld item%s", (long long)n->max_items,
				n->max_items == 1 ? "" : "s");
	for (i = 0; i < size && (i < n->prefix.n || n->items); i++) {
		const tg_snode *s = i < n->prefix.n ? n->prefix.v[i] : n->items;
		size_t old = tg_spath_index(&c->path, i);
		if (s->boolean == 0)
			return tg_sfail(c, "item not allowed (%s is false)", i < n->prefix.n ? "prefixItems"
												: "items");
		if ((r = child(c, s, json_array_get(v, i), ev ? ev->items : NULL, i)) < 0)
			return r;
		tg_spath_pop(&c->path, old);
	}
	if (n->contains && (r = contains(c, n, v, ev)) < 0)
		return r;
	if (n->unique)
		return unique_items(c, v);
	return 0;
}

int tg_sapply_uneval(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev)
{
	const char *key;
	json_t *m;
	size_t k = 0;
	int r;
	if (n->uneval_props && json_is_object(v)) {
		json_object_foreach((json_t *)v, key, m) {
			size_t old;
			if (tg_seval_has(ev->props, k++))
				continue;
			old = tg_spath_key(&c->path, key);
			if (n->uneval_props->boolean == 0)
				return tg_sfail(c, "property not allowed (unevaluatedProperties is false)");
			if ((r = child(c, n->uneval_props, m, ev->props, k - 1)) < 0)
				return r;
			tg_spath_pop(&c->path, old);
		}
	}
	if (n->uneval_items && json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			size_t old;
			if (tg_seval_has(ev->items, i))
				continue;
			old = tg_spath_index(&c->path, i);
			if (n->uneval_items->boolean == 0)
				return tg_sfail(c, "item not allowed (unevaluatedItems is false)");
			if ((r = child(c, n->uneval_items, json_array_get(v, i), ev->items, i)) < 0)
				return r;
			tg_spath_pop(&c->path, old);
		}
	}
	return 0;
}
