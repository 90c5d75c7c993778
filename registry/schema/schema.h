/*
 * registry/schema/schema.h: internal to registry/ (not a public header). The JSON
 * Schema subset that tool input schemas may use, documented in
 * docs/SCHEMA.md: type (object, array, string, integer, number, boolean,
 * null), properties, required, additionalProperties (boolean), enum,
 * minimum/maximum, minLength/maxLength, items, minItems/maxItems,
 * description/title (ignored). Anything else in a schema is refused, so an
 * agent cannot rely on a keyword that is silently not enforced.
 */
#ifndef TG_REGISTRY_SCHEMA_H
#define TG_REGISTRY_SCHEMA_H

#include "common/common.h"

/* 0 if schema uses only the subset and is well formed (and, at the top,
 * is {"type":"object",...}); TG_ERR_INVALID with a message naming the path,
 * e.g. "input_schema.properties.n.minimum: must be a number". */
int tg_schema_check(const json_t *schema);

/* The same subset for a tool's output_schema: any top-level type (it must
 * say which); messages name "output_schema...". */
int tg_schema_check_output(const json_t *schema);

/* 0 if value conforms to schema (already checked); TG_ERR_INVALID with a
 * message naming the path in the value, e.g. "args.text: must be a string". */
int tg_schema_validate(const json_t *schema, const json_t *value);
/* The same with another name for the value's root ("result"). */
int tg_schema_validate_at(const json_t *schema, const json_t *value, const char *root);

#endif
