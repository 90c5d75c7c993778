/*
 * registry/record/schema_cache.c: the parsed input and output schemas of the
 * versions a handle calls, so that a call on a long-lived handle (`toolgate
 * serve`, its HTTP workers, a run's bridged calls) does not parse them
 * again. An entry is keyed by the version's row id and commit id (a new
 * version, or a version re-indexed from another commit, is another key),
 * and a hit also requires the schema texts read from the registry for this
 * call to be byte for byte the texts the entry was parsed from: whatever
 * changes a version's schema in registry.db, the cache cannot serve the old
 * one. At most REG_SCHEMA_CACHE_MAX entries; the least recently used goes.
 * The schema validator interprets the parsed JSON directly (schema.c has
 * no separate compiled form), so the parse is what is saved.
 */
#include "registry/record/record.h"

#include <string.h>

#define REG_SCHEMA_CACHE_MAX 64

typedef struct schema_ent {
	int64_t vid;
	char commit[65];
	char *itext, *otext; /* otext NULL: no output schema */
	json_t *in, *out;
	uint64_t used;
} schema_ent;

struct reg_schema_cache {
	schema_ent e[REG_SCHEMA_CACHE_MAX];
	size_t n;
	uint64_t tick, hits, misses;
};

static json_t *parse(const char *t)
{
	json_t *v = NULL;
	tg_json_limits lim = { 16u << 20, 128 };

	if (!t || tg_json_parse(&v, t, strlen(t), &lim) < 0) {
		tg_error_clear();
		return json_null();
	}
	return v;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void ent_clear(schema_ent *e)
{
	free(e->itext);
	free(e->otext);
	json_decref(e->in);
	json_decref(e->out);
	memset(e, 0, sizeof(*e));
}

void reg_schema_cache_free(reg_schema_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		ent_clear(&c->e[i]);
	free(c);
}

int reg_schema_get(tg_registry *r, int64_t vid, const char *commit, const char *itext,
		   const char *otext, json_t **in, json_t **out)
{
	reg_schema_cache *c = r->schemas;
	schema_ent *e = NULL;
	size_t i;

	*in = *out = NULL;
	if (!c && !(c = r->schemas = calloc(1, sizeof(*c))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!commit)
		commit = "";
	c->tick++;
	for (i = 0; i < c->n; i++) {
		schema_ent *x = &c->e[i];
		if (x->vid == vid && strcmp(x->commit, commit) == 0) {
			e = x;
			break;
		}
	}
	if (e && same(e->itext, itext) && same(e->otext, otext)) {
		c->hits++;
		goto found;
	}
	c->misses++;
	if (!e) {
		if (c->n < REG_SCHEMA_CACHE_MAX) {
			e = &c->e[c->n++];
		} else {
			e = &c->e[0];
			for (i = 1; i < c->n; i++)
				if (c->e[i].used < e->used)
					e = &c->e[i];
		}
	}
	ent_clear(e);
	e->vid = vid;
	snprintf(e->commit, sizeof(e->commit), "%.64s", commit);
	e->itext = itext ? strdup(itext) : NULL;
	e->otext = otext ? strdup(otext) : NULL;
	e->in = parse(itext);
	e->out = otext ? parse(otext) : json_null();
	if ((itext && !e->itext) || (otext && !e->otext) || !e->in || !e->out) {
		ent_clear(e);
		e->vid = -1;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
found:
	e->used = c->tick;
	*in = json_incref(e->in);
	*out = json_incref(e->out);
	return 0;
}

void tg_registry_schema_cache_stats(const tg_registry *r, uint64_t *hits, uint64_t *misses)
{
	*hits = r->schemas ? r->schemas->hits : 0;
	*misses = r->schemas ? r->schemas->misses : 0;
}
