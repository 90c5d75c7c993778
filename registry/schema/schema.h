/*
 * registry/schema/schema.h: internal to registry/ (not a public header).
 * JSON Schema 2020-12 for tool input and output schemas, documented in
 * docs/SCHEMA.md: the applicator and validation vocabularies ($defs, $ref
 * within the document, allOf/anyOf/oneOf/not, if/then/else, properties,
 * patternProperties, additionalProperties, propertyNames, dependent*,
 * prefixItems, items, contains, unevaluated*, every validation keyword),
 * boolean schemas, the meta-data annotations and `format` (an annotation
 * unless TG_SCHEMA_ASSERT_FORMAT). A keyword outside these, a remote $ref,
 * $dynamicRef and $vocabulary are refused, so an agent cannot rely on a
 * keyword that is silently not enforced.
 */
#ifndef TG_REGISTRY_SCHEMA_H
#define TG_REGISTRY_SCHEMA_H

#include "common/common.h"

/* 0 if schema is a valid schema that toolgate enforces in full (and, at the
 * top, is {"type":"object",...}); TG_ERR_INVALID or TG_ERR_LIMIT with a
 * message naming the place, e.g. "input_schema.properties.n.minimum: must
 * be a number". */
int tg_schema_check(const json_t *schema);

/* The same for a tool's output_schema: any top-level type (it must say
 * which); messages name "output_schema...". */
int tg_schema_check_output(const json_t *schema);

/* 0 if value conforms to schema (already checked); TG_ERR_INVALID with a
 * message naming the path in the value, e.g. "args.text: must be a string";
 * TG_ERR_LIMIT when the validation hits a limit. These compile the schema on
 * every call: a caller that validates often should keep a tg_schema. */
int tg_schema_validate(const json_t *schema, const json_t *value);
/* The same with another name for the value's root ("result"). */
int tg_schema_validate_at(const json_t *schema, const json_t *value, const char *root);

/* ---- a compiled schema: check once, validate many times ---- */

typedef struct tg_schema tg_schema;

enum {
	TG_SCHEMA_TOP_OBJECT = 1 << 0,    /* the top must be {"type":"object"} (input_schema) */
	TG_SCHEMA_TOP_TYPED = 1 << 1,     /* the top must have a "type" (output_schema) */
	TG_SCHEMA_ASSERT_FORMAT = 1 << 2, /* format asserts (docs/SCHEMA.md lists which) */
	/* with TG_SCHEMA_ASSERT_FORMAT: a format name outside that list stays an
	 * annotation instead of failing the compile (validating against a schema
	 * that was checked when format was not asserted) */
	TG_SCHEMA_FORMAT_UNKNOWN_OK = 1 << 3,
};

/* Check and compile schema; messages name root ("input_schema"). The
 * compiled schema holds a reference on schema, which must not change. */
int tg_schema_compile(tg_schema **out, const json_t *schema, const char *root, unsigned flags);
/* Validate value; messages name root ("args", "result"). Thread-safe: a
 * compiled schema is not modified by validation. */
int tg_schema_run(const tg_schema *s, const json_t *value, const char *root);
void tg_schema_free(tg_schema *s);

/* tg_schema_validate_at with flags (TG_SCHEMA_ASSERT_FORMAT). */
int tg_schema_validate_flags(const json_t *schema, const json_t *value, const char *root,
			     unsigned flags);

#endif
