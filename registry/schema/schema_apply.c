/*
 * registry/schema/schema_apply.c: the object and array keywords of one
 * schema node applied to a value (schema_validate.c calls them).
 * Objects: minProperties/maxProperties, required, dependentRequired, then
 * each member in the value's order through properties, patternProperties
 * and additionalProperties, then propertyNames. Arrays: minItems/maxItems,
 * prefixItems and items, contains with minContains/maxContains, and
 * uniqueItems (sorted by a hash, so a long array costs n log n, not n^2).
 * unevaluatedProperties/unevaluatedItems apply last, to what no other
 * keyword of the schema (or of its in-place subschemas) evaluated.
 */
#include "registry/schema/schema_int.h"

#include <stdlib.h>
#include <string.h>

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
