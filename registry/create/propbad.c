/*
 * registry/create/propbad.c: the inputs of a submission's property tests
 * that break its input_schema, one constraint at a time (docs/REGISTRY.md,
 * "Property tests"). Each starts from a conforming input (one propgen.c
 * made, with as many properties as it could) and breaks one keyword of one
 * property by construction, without asking the validator: a value of
 * another type, one below minimum or above maximum, at an exclusive bound,
 * off multipleOf, a string one code point too short or too long, an array
 * one item too short or too long or with a duplicate, a value outside enum
 * or const, a format the home asserts broken, a required property removed,
 * a property added under additionalProperties: false; nested objects too.
 * Each must be refused by the compiled input_schema: these test the
 * validator (what every call goes through), not the tool; no tool runs.
 * reg_propbad_check() runs them through the compiled schema and fails the
 * create on the first one accepted. Calls propgen.c's reg_schema_deref and
 * reg_propgen_format_known.
 */

#include <math.h>
#include <string.h>
#include "registry/create/create.h"

#define BAD_MAX 256        /* violating inputs of one schema at most */
#define BAD_MAX_LEN 100000 /* a length bound past which no string is made */
#define BAD_MAX_ITEMS 1000 /* a maxItems past which no array is made */
#define BAD_DEPTH 4        /* nested objects followed */
#define BAD_PATH 512       /* bytes of a constraint's path */

typedef struct bad {
	const json_t *root; /* input_schema */
	const json_t *base; /* the conforming input */
	unsigned sflags;
	json_t *out;
	const char *keys[BAD_DEPTH]; /* from the top of the input to the object at hand */
	int nkeys;
} bad;

/* Add {constraint: PATH.kw, args: base with the value at key set to v, or
 * key removed when drop}; consumes v; nothing when v is NULL and !drop. */
static void add_at(bad *b, const char *path, const char *kw, const char *key, json_t *v,
		   int drop)
{
	json_t *args, *o;
	char c[BAD_PATH + 96];

	if ((!v && !drop) || json_array_size(b->out) >= BAD_MAX ||
	    !(args = json_deep_copy(b->base))) {
		json_decref(v);
		return;
	}
	o = args;
	for (int i = 0; i < b->nkeys && o; i++)
		o = json_object_get(o, b->keys[i]);
	if (!json_is_object(o)) {
		json_decref(v);
		json_decref(args);
		return;
	}
	if (drop)
		json_object_del(o, key);
	else
		json_object_set_new(o, key, v);
	snprintf(c, sizeof(c), "%s.%s", path, kw);
	json_array_append_new(b->out, json_pack("{s:s, s:o}", "constraint", c, "args", args));
}

static void add(bad *b, const char *path, const char *kw, const char *key, json_t *v)
{
	add_at(b, path, kw, key, v, 0);
}

static int type_allowed(const json_t *t, const char *name)
{
	json_t *x;
	size_t i;

	if (json_is_string(t))
		return strcmp(json_string_value(t), name) == 0;
	json_array_foreach(t, i, x)
		if (json_is_string(x) && strcmp(json_string_value(x), name) == 0)
			return 1;
	return 0;
}

/* A value none of whose JSON types t allows, or NULL. */
static json_t *wrong_type(const json_t *t)
{
	if (!type_allowed(t, "string"))
		return json_string("x");
	if (!type_allowed(t, "integer") && !type_allowed(t, "number"))
		return json_integer(12345);
	if (!type_allowed(t, "number"))
		return json_real(0.5);
	if (!type_allowed(t, "boolean"))
		return json_true();
	if (!type_allowed(t, "null"))
		return json_null();
	if (!type_allowed(t, "array"))
		return json_array();
	if (!type_allowed(t, "object"))
		return json_object();
	return NULL;
}

static json_t *num(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* A value other than every member of vals (enum) or than one value (const). */
static json_t *outside(const json_t *vals)
{
	json_t *cand[3], *v;
	double top = 0;
	size_t i;
	int all_num = json_array_size(vals) > 0;

	json_array_foreach(vals, i, v) {
		all_num &= json_is_number(v);
		if (json_is_number(v) && (i == 0 || json_number_value(v) > top))
			top = json_number_value(v);
	}
	cand[0] = all_num && top < 9e15 ? json_integer((json_int_t)floor(top) + 1) : NULL;
	cand[1] = json_string("~not-a-listed-value~");
	cand[2] = json_string("~not-a-listed-value~~");
	for (int k = 0; k < 3; k++) {
		int member = !cand[k];
		json_array_foreach(vals, i, v)
			member |= cand[k] && json_equal(v, cand[k]);
		if (!member) {
			for (int j = k + 1; j < 3; j++)
				json_decref(cand[j]);
			return cand[k];
		}
		json_decref(cand[k]);
	}
	return NULL;
}

static json_t *a_string(size_t n)
{
	char *s = malloc(n + 1);
	json_t *j;

	if (!s)
		return NULL;
	memset(s, 'a', n);
	s[n] = 0;
	j = json_string(s);
	free(s);
	return j;
}

static void obj_violations(bad *b, const json_t *s, const json_t *obj, const char *path);

/* key cut to at most 64 bytes on a UTF-8 boundary, for a constraint's path */
static void short_key(char out[65], const char *key)
{
	size_t n = strlen(key);

	if (n > 64) {
		n = 64;
		while (n > 0 && ((unsigned char)key[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(out, key, n);
	out[n] = 0;
}

/* The violations of property key (schema ps, value v in the base). */
static void prop_violations(bad *b, const json_t *ps, const char *key, const json_t *v,
			    const char *path)
{
	json_t *x, *vals;
	double d;

	if (!json_is_object(ps))
		return;
	if ((x = json_object_get(ps, "type")))
		add(b, path, "type", key, wrong_type(x));
	if ((vals = json_object_get(ps, "enum")))
		add(b, path, "enum", key, outside(vals));
	if ((x = json_object_get(ps, "const"))) {
		_cleanup_json_ json_t *one = json_pack("[O]", x);
		add(b, path, "const", key, outside(one));
	}
	if (json_is_number(x = json_object_get(ps, "minimum")) && fabs(d = json_number_value(x)) < 9e15)
		add(b, path, "minimum", key, num(d - 1));
	if (json_is_number(x = json_object_get(ps, "maximum")) && fabs(d = json_number_value(x)) < 9e15)
		add(b, path, "maximum", key, num(d + 1));
	if (json_is_number(x = json_object_get(ps, "exclusiveMinimum")))
		add(b, path, "exclusiveMinimum", key, json_deep_copy(x));
	if (json_is_number(x = json_object_get(ps, "exclusiveMaximum")))
		add(b, path, "exclusiveMaximum", key, json_deep_copy(x));
	x = json_object_get(ps, "multipleOf");
	if (json_is_integer(x) && json_integer_value(x) >= 2 && json_is_integer(v) &&
	    llabs(json_integer_value(v)) < (1ll << 52)) {
		/* one off a conforming multiple, on the side the bounds allow */
		json_int_t n = json_integer_value(v), lo = n - 1, hi = n + 1;
		json_t *mx = json_object_get(ps, "maximum"), *xmx = json_object_get(ps, "exclusiveMaximum");
		int hi_ok = !(json_is_number(mx) && (double)hi > json_number_value(mx)) &&
			    !(json_is_number(xmx) && (double)hi >= json_number_value(xmx));
		add(b, path, "multipleOf", key, json_integer(hi_ok ? hi : lo));
	}
	x = json_object_get(ps, "minLength");
	if (json_is_integer(x) && json_integer_value(x) > 0 && json_integer_value(x) <= BAD_MAX_LEN)
		add(b, path, "minLength", key, a_string((size_t)json_integer_value(x) - 1));
	x = json_object_get(ps, "maxLength");
	if (json_is_integer(x) && json_integer_value(x) < BAD_MAX_LEN)
		add(b, path, "maxLength", key, a_string((size_t)json_integer_value(x) + 1));
	if ((b->sflags & TG_SCHEMA_ASSERT_FORMAT) &&
	    reg_propgen_format_known(json_string_value(json_object_get(ps, "format"))))
		add(b, path, "format", key, json_string("%"));
	if (json_is_array(v)) {
		x = json_object_get(ps, "minItems");
		if (json_is_integer(x) && json_integer_value(x) > 0 &&
		    json_array_size(v) >= (size_t)json_integer_value(x)) {
			json_t *a = json_deep_copy(v);
			while (a && json_array_size(a) >= (size_t)json_integer_value(x))
				json_array_remove(a, json_array_size(a) - 1);
			add(b, path, "minItems", key, a);
		}
		x = json_object_get(ps, "maxItems");
		if (json_is_integer(x) && json_integer_value(x) < BAD_MAX_ITEMS &&
		    json_array_size(v) > 0 && !json_is_true(json_object_get(ps, "uniqueItems"))) {
			json_t *a = json_deep_copy(v);
			while (a && json_array_size(a) <= (size_t)json_integer_value(x))
				json_array_append_new(a, json_deep_copy(json_array_get(v, 0)));
			add(b, path, "maxItems", key, a);
		}
		if (json_is_true(json_object_get(ps, "uniqueItems")) && json_array_size(v) > 0) {
			json_t *a = json_deep_copy(v);
			if (a)
				json_array_append_new(a, json_deep_copy(json_array_get(v, 0)));
			add(b, path, "uniqueItems", key, a);
		}
	}
	if (json_is_object(v) && b->nkeys < BAD_DEPTH) {
		b->keys[b->nkeys++] = key;
		obj_violations(b, ps, v, path);
		b->nkeys--;
	}
}

/* The violations inside object obj (schema s, already followed through $ref). */
static void obj_violations(bad *b, const json_t *s, const json_t *obj, const char *path)
{
	json_t *props = json_object_get(s, "properties"), *ps, *rk;
	const char *k;
	size_t i;

	json_array_foreach(json_object_get(s, "required"), i, rk) {
		char kw[96], k64[65];
		if (!json_is_string(rk) || !json_object_get(obj, json_string_value(rk)))
			continue;
		short_key(k64, json_string_value(rk));
		snprintf(kw, sizeof(kw), "required (%s)", k64);
		add_at(b, path, kw, json_string_value(rk), NULL, 1);
	}
	if (json_is_false(json_object_get(s, "additionalProperties")) &&
	    !json_object_get(s, "patternProperties")) {
		char extra[80] = "tg_extra";
		for (int n = 0; n < 8 && json_object_get(props, extra); n++)
			strcat(extra, "_");
		if (!json_object_get(props, extra) && !json_object_get(obj, extra))
			add(b, path, "additionalProperties", extra, json_null());
	}
	json_object_foreach(props, k, ps) {
		const json_t *v = json_object_get(obj, k);
		char sub[BAD_PATH], k64[65];
		if (!v)
			continue; /* absent in the base: a wrong value needs a place */
		short_key(k64, k);
		if ((size_t)snprintf(sub, sizeof(sub), "%s.properties.%s", path, k64) >= sizeof(sub))
			continue; /* deeper than a path can name */
		prop_violations(b, reg_schema_deref(b->root, ps), k, v, sub);
	}
}

int reg_propbad(json_t **out, const json_t *schema, const json_t *base, unsigned sflags)
{
	bad b = { schema, base, sflags, json_array(), { 0 }, 0 };

	*out = NULL;
	if (!b.out)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (json_is_object(base))
		obj_violations(&b, schema, base, "input_schema");
	*out = b.out;
	return 0;
}

int reg_propbad_check(json_t *summary, json_t *tests, char **reason, const tg_schema *in,
		      const json_t *schema, const json_t *inputs, unsigned sflags)
{
	_cleanup_json_ json_t *viol = NULL;
	const json_t *base = NULL, *v;
	size_t i, refused = 0;
	int rc, failed = 0;

	json_array_foreach(inputs, i, v)
		if (!base || json_object_size(v) > json_object_size(base))
			base = v;
	if ((rc = reg_propbad(&viol, schema, base, sflags)) < 0)
		return rc;
	json_array_foreach(viol, i, v) {
		const char *c = json_string_value(json_object_get(v, "constraint"));
		_cleanup_free_ char *shown = NULL, *detail = NULL;
		char name[32];
		if (tg_schema_run(in, json_object_get(v, "args"), "args") < 0) {
			tg_error_clear();
			refused++;
			continue;
		}
		snprintf(name, sizeof(name), "violation %zu", i + 1);
		shown = reg_prop_show(json_object_get(v, "args"));
		if (!shown || asprintf(&detail, "%s is not enforced: input_schema accepted args %s, "
						"which break it", c, shown) < 0 ||
		    asprintf(reason, "property test %s failed: %s", name, detail) < 0) {
			detail = NULL;
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
		json_object_set_new(summary, "failed", json_string(name));
		if (json_array_append_new(tests, json_pack("{s:s, s:b, s:s, s:i, s:b}", "name", name,
							   "passed", 0, "detail", detail, "wall_ms",
							   0, "skipped", 0)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		failed = 1;
		break;
	}
	json_object_set_new(summary, "violations",
			    json_pack("{s:I, s:I}", "generated", (json_int_t)json_array_size(viol),
				      "refused", (json_int_t)refused));
	return failed;
}

