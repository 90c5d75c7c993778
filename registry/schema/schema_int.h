/*
 * registry/schema/schema_int.h: internal to registry/schema/. The compiled
 * form of a JSON Schema 2020-12 document (one tg_snode per schema object or
 * boolean schema, keyword values checked and pre-parsed, $ref resolved to a
 * node, patterns compiled once), the limits that bound what an agent's schema
 * and arguments can cost, and the helpers shared by the module's files:
 * lowest first, schema_util.c (paths, numbers, equality, the node list),
 * schema_regex.c (pattern through PCRE2), schema_format.c (format),
 * schema_ref.c (URIs, $id, $anchor, $ref, cycles), schema_compile.c
 * (checking keywords into nodes), schema_validate.c (validation), schema.c
 * (the public API). Calls go down that list only.
 */
#ifndef TG_REGISTRY_SCHEMA_INT_H
#define TG_REGISTRY_SCHEMA_INT_H

#include "registry/schema/schema.h"

#include <stdint.h>

/* Limits on what the schema's author controls (docs/SCHEMA.md). */
#define TG_SCHEMA_MAX_BYTES (256 * 1024) /* compact JSON text of the schema */
#define TG_SCHEMA_MAX_NODES 4096         /* schema objects and boolean schemas */
#define TG_SCHEMA_MAX_DEPTH 32           /* nesting of schemas in the document */
#define TG_SCHEMA_MAX_LIST 1024          /* enum values, required names, type list */
#define TG_SCHEMA_MAX_PATTERNS 256       /* pattern and patternProperties entries */
#define TG_SCHEMA_MAX_PATTERN_LEN 1024   /* bytes of one pattern */
#define TG_SCHEMA_MAX_REFS 1024          /* $ref keywords */
/* Limits on one validation (the arguments are the agent's too). */
#define TG_SCHEMA_MAX_STACK 512         /* nested schema applications */
#define TG_SCHEMA_MAX_STEPS 5000000L    /* schema applications per validation */
#define TG_SCHEMA_MAX_MS 2000           /* wall time of one validation */
#define TG_SCHEMA_MATCH_LIMIT 1000000   /* PCRE2 match limit per match */
#define TG_SCHEMA_DEPTH_LIMIT 10000     /* PCRE2 backtracking depth per match */
#define TG_SCHEMA_HEAP_LIMIT_KB 20000   /* PCRE2 heap per match */

enum {
	TG_T_OBJECT = 1 << 0,
	TG_T_ARRAY = 1 << 1,
	TG_T_STRING = 1 << 2,
	TG_T_INTEGER = 1 << 3,
	TG_T_NUMBER = 1 << 4,
	TG_T_BOOLEAN = 1 << 5,
	TG_T_NULL = 1 << 6,
};

/* Formats that TG_SCHEMA_ASSERT_FORMAT asserts (0: an annotation only). */
enum { TG_F_NONE, TG_F_DATE, TG_F_TIME, TG_F_DATE_TIME, TG_F_EMAIL, TG_F_IPV4, TG_F_IPV6,
       TG_F_UUID, TG_F_URI };

typedef struct tg_regex tg_regex;
typedef struct tg_snode tg_snode;

typedef struct tg_snamed {
	const char *name; /* borrowed from the schema document */
	tg_snode *node;
} tg_snamed;

typedef struct tg_spattern {
	tg_regex *re;
	tg_snode *node;
} tg_spattern;

typedef struct tg_slist {
	tg_snode **v;
	size_t n;
} tg_slist;

struct tg_snode {
	const json_t *json;   /* the schema, borrowed from the document */
	char *where;          /* its path for messages: "input_schema.properties.n" */
	char *base;           /* base URI in effect (after its own $id) */
	int boolean;          /* -1: a schema object; else the boolean schema */
	int types;            /* TG_T_* mask, 0 = any type */
	int format;           /* TG_F_* */
	int unique;           /* uniqueItems: true */
	int uneval;           /* has unevaluatedProperties or unevaluatedItems */
	const json_t *enum_v, *const_v, *minimum, *maximum, *xminimum, *xmaximum, *multiple;
	int64_t min_len, max_len, min_items, max_items, min_props, max_props;
	int64_t min_contains, max_contains; /* -1: absent */
	tg_regex *pattern;
	const json_t *required, *dep_required;
	json_t *prop_index; /* owned: property name -> index into props */
	tg_snamed *props;
	size_t nprops;
	tg_spattern *pprops;
	size_t npprops;
	tg_snamed *dep_schemas;
	size_t ndep;
	tg_slist prefix, all_of, any_of, one_of;
	tg_snode *additional, *prop_names, *uneval_props, *uneval_items, *items, *contains;
	tg_snode *not_, *if_, *then_, *else_;
	const char *ref_text; /* $ref as written; ref: its target once resolved */
	tg_snode *ref;
	int mark; /* cycle search (schema_ref.c) */
};

/* A compiled schema (schema.h): the nodes and what resolves references. */
struct tg_schema {
	json_t *doc;        /* a reference on the document */
	tg_snode *root;
	tg_snode **nodes;   /* every node, for lookup and freeing */
	size_t nnodes, cap;
	struct tg_sres *res; /* resources ($id) and anchors */
	size_t nres, rescap;
	size_t nrefs, npatterns;
	unsigned flags;
};

typedef struct tg_sres {
	char *uri;          /* absolute, with "#anchor" for an anchor */
	tg_snode *node;
} tg_sres;

/* ---- paths in messages (schema.c) ---- */
#define TG_SPATH_MAX 480
typedef struct tg_spath {
	char s[TG_SPATH_MAX + 16];
	size_t len;
} tg_spath;
void tg_spath_init(tg_spath *p, const char *root);
size_t tg_spath_key(tg_spath *p, const char *key);
size_t tg_spath_index(tg_spath *p, size_t i);
void tg_spath_pop(tg_spath *p, size_t old);

/* ---- numbers and equality (schema.c) ---- */
int tg_sjson_is_int(const json_t *v);
long double tg_sjson_ld(const json_t *v);
int tg_sjson_cmp(const json_t *a, const json_t *b);
int tg_sjson_equal(const json_t *a, const json_t *b);
uint64_t tg_sjson_hash(const json_t *v);
void tg_sjson_num_text(char *buf, size_t size, const json_t *v);
int tg_stype_bit(const char *name);
int tg_svalue_mask(const json_t *v);
void tg_smask_text(char *buf, size_t size, int mask);
const char *tg_smask_name(char *buf, size_t size, int mask);

/* ---- compiling (schema_compile.c, schema_ref.c) ---- */
/* Compile the schema at json (path p) with base URI base; NULL on error. */
tg_snode *tg_scompile_node(tg_schema *s, const json_t *json, tg_spath *p, const char *base,
			   unsigned depth);
tg_snode *tg_sschema_find(const tg_schema *s, const json_t *json);
int tg_sschema_add_node(tg_schema *s, tg_snode *n);
void tg_snode_free(tg_snode *n);
/* $id and $anchor of node n (its base already set): register them. */
int tg_sref_register(tg_schema *s, tg_snode *n, const char *id_uri, const char *anchor);
/* Resolve ref against base into a malloc'd absolute URI; NULL if malformed. */
char *tg_suri_resolve(const char *base, const char *ref);
/* Resolve every $ref, then refuse cycles of references that consume no
 * input. A pointer into the document that no node was compiled for yet is
 * compiled with compile (schema.c hands in tg_scompile_node: the reference
 * side sits below the compiler and never calls it). */
typedef tg_snode *(*tg_scompile_fn)(tg_schema *s, const json_t *json, tg_spath *p,
				    const char *base, unsigned depth);
int tg_sref_link(tg_schema *s, tg_scompile_fn compile);

/* ---- validation (schema_validate.c) ---- */
typedef struct tg_seval {
	uint8_t *props; /* bit per member, in the instance's iteration order */
	size_t nprops;
	uint8_t *items; /* bit per item */
	size_t nitems;
} tg_seval;

typedef struct tg_sctx {
	const tg_schema *s;
	tg_spath path;
	int quiet;       /* > 0: inside anyOf/oneOf/not/if: no messages */
	unsigned depth;
	long steps;
	uint64_t deadline;
} tg_sctx;

int tg_sfail(tg_sctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tg_svalidate_node(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev);
int tg_sapply_object(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev);
int tg_sapply_array(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev);
int tg_sapply_uneval(tg_sctx *c, const tg_snode *n, const json_t *v, tg_seval *ev);
void tg_seval_mark(uint8_t *bits, size_t i);
int tg_seval_has(const uint8_t *bits, size_t i);
int tg_seval_init(tg_seval *e, const json_t *v);
void tg_seval_merge(tg_seval *into, const tg_seval *from);
void tg_seval_free(tg_seval *e);

/* ---- format (schema_format.c) and pattern (schema_regex.c) ---- */
int tg_sformat_id(const char *name);
const char *tg_sformat_name(int id);
int tg_sformat_check(int id, const char *s, size_t len);
/* Compile an ECMA-262-like pattern; NULL with the error set (message names p). */
tg_regex *tg_sregex_compile(const char *pattern, size_t len, const char *where);
/* 1 match, 0 no match, TG_ERR_LIMIT when the match limits are hit. */
int tg_sregex_match(const tg_regex *re, const char *s, size_t len);
const char *tg_sregex_source(const tg_regex *re);
void tg_sregex_free(tg_regex *re);

#endif
