/*
 * registry/schema/schema.c: the public side of the JSON Schema module
 * (schema.h, docs/SCHEMA.md) and what its files share. tg_schema_compile()
 * checks the top (an input schema is {"type":"object",...}, an output schema
 * names a type), bounds the document's size, compiles it into nodes
 * (schema_compile.c) and links its references (schema_ref.c);
 * tg_schema_run() validates a value against the nodes (schema_validate.c).
 * The older entry points compile, use and free a schema on each call. What
 * the module's files share is schema_util.c's.
 */
#include "registry/schema/schema_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tg_schema_free(tg_schema *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnodes; i++)
		tg_snode_free(s->nodes[i]);
	for (size_t i = 0; i < s->nres; i++)
		free(s->res[i].uri);
	free(s->res);
	free(s->nodes);
	json_decref(s->doc);
	free(s);
}

static int check_top(const json_t *schema, const char *root, unsigned flags)
{
	const json_t *t = json_object_get(schema, "type");
	size_t size;
	if (!json_is_object(schema) &&
	    (!json_is_boolean(schema) || (flags & (TG_SCHEMA_TOP_OBJECT | TG_SCHEMA_TOP_TYPED))))
		return tg_error_set(TG_ERR_INVALID, "%s: must be an object", root);
	if ((flags & TG_SCHEMA_TOP_OBJECT) && (!json_is_string(t) || strcmp(json_string_value(t), "object")))
		return tg_error_set(TG_ERR_INVALID,
				    "%s.type: must be \"object\" (the arguments are one JSON object)", root);
	if ((flags & TG_SCHEMA_TOP_TYPED) && !json_is_string(t))
		return tg_error_set(TG_ERR_INVALID,
				    "%s.type: is required (object, array, string, integer, number, "
				    "boolean or null)", root);
	size = json_dumpb(schema, NULL, 0, JSON_COMPACT);
	if (size > TG_SCHEMA_MAX_BYTES)
		return tg_error_set(TG_ERR_LIMIT, "%s: larger than %d bytes", root, TG_SCHEMA_MAX_BYTES);
	return 0;
}

/* The base URI of a document without $id: relative references resolve
 * against it, and anything that leaves it is a remote reference. */
#define DEFAULT_BASE "tg-schema://document/root.json"

int tg_schema_compile(tg_schema **out, const json_t *schema, const char *root, unsigned flags)
{
	tg_schema *s;
	tg_spath p;
	int r;
	*out = NULL;
	if ((r = check_top(schema, root, flags)) < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
	s->doc = json_incref((json_t *)schema);
	s->flags = flags;
	tg_spath_init(&p, root);
	s->root = tg_scompile_node(s, schema, &p, DEFAULT_BASE, 0);
	if (!s->root || (r = tg_sref_link(s, tg_scompile_node)) < 0) {
		r = tg_error_last()->code;
		tg_schema_free(s);
		return r < 0 ? r : TG_ERR_INVALID;
	}
	*out = s;
	return 0;
}

int tg_schema_check(const json_t *schema)
{
	tg_schema *s;
	int r = tg_schema_compile(&s, schema, "input_schema", TG_SCHEMA_TOP_OBJECT);
	tg_schema_free(s);
	return r;
}

int tg_schema_check_output(const json_t *schema)
{
	tg_schema *s;
	int r = tg_schema_compile(&s, schema, "output_schema", TG_SCHEMA_TOP_TYPED);
	tg_schema_free(s);
	return r;
}

int tg_schema_validate_flags(const json_t *schema, const json_t *value, const char *root,
			     unsigned flags)
{
	tg_schema *s;
	int r;
	if (!json_is_object(schema) || !value)
		return tg_error_set(TG_ERR_INTERNAL, "schema validation: no schema or no value");
	if ((r = tg_schema_compile(&s, schema, "schema", flags)) < 0)
		return tg_error_prefix("schema validation");
	r = tg_schema_run(s, value, root);
	tg_schema_free(s);
	return r;
}

int tg_schema_validate(const json_t *schema, const json_t *value)
{
	return tg_schema_validate_flags(schema, value, "args", 0);
}

int tg_schema_validate_at(const json_t *schema, const json_t *value, const char *root)
{
	return tg_schema_validate_flags(schema, value, root, 0);
}
