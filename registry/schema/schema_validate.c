/*
 * registry/schema/schema_validate.c: validating a value against a compiled
 * schema. Each node applies, in this order, type, enum, const, the number
 * and string assertions (format only under TG_SCHEMA_ASSERT_FORMAT), the
 * object and array keywords (schema_apply.c), the in-place applicators
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
