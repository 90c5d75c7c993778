/*
 * tests/registry/test_propbad.c: the inputs of property tests that break
 * input_schema one constraint at a time (registry/create/propbad.c), no
 * sandbox: for one schema, the exact list of constraints broken, each input
 * made from the conforming one, each refused by the validator with the
 * exact message a call would get; format ones only when formats are
 * asserted; and reg_propbad_check failing a create when the compiled
 * schema accepts one (here a schema without the minimum stands for a
 * validator that would not enforce it), naming the constraint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "registry/create/create.h"

static const char *const SCHEMA =
	"{\"type\":\"object\",\"$defs\":{\"day\":{\"type\":\"string\",\"format\":\"date\"}},"
	"\"properties\":{"
	"\"n\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":10,\"multipleOf\":2},"
	"\"s\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":3},"
	"\"e\":{\"enum\":[\"a\",\"b\"]},"
	"\"c\":{\"const\":7},"
	"\"x\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":1},"
	"\"xs\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":1,"
	"\"maxItems\":2,\"uniqueItems\":true},"
	"\"o\":{\"type\":\"object\",\"properties\":{\"d\":{\"$ref\":\"#/$defs/day\"}},"
	"\"required\":[\"d\"],\"additionalProperties\":false}},"
	"\"required\":[\"n\",\"s\"],\"additionalProperties\":false}";

static const char *const BASE =
	"{\"n\":4,\"s\":\"ab\",\"e\":\"a\",\"c\":7,\"x\":0.5,\"xs\":[1],\"o\":{\"d\":\"2024-01-01\"}}";

/* The constraints broken, in order, and the validator's message for each
 * (formats asserted). */
static const char *const WANT[][2] = {
	{ "input_schema.required (n)",
	  "args.n: required property is missing" },
	{ "input_schema.required (s)",
	  "args.s: required property is missing" },
	{ "input_schema.additionalProperties",
	  "args.tg_extra: property not allowed (additionalProperties is false)" },
	{ "input_schema.properties.n.type",
	  "args.n: must be an integer" },
	{ "input_schema.properties.n.minimum",
	  "args.n: must be >= 2" },
	{ "input_schema.properties.n.maximum",
	  "args.n: must be <= 10" },
	{ "input_schema.properties.n.multipleOf",
	  "args.n: must be a multiple of 2" },
	{ "input_schema.properties.s.type",
	  "args.s: must be a string" },
	{ "input_schema.properties.s.minLength",
	  "args.s: must be at least 1 character long" },
	{ "input_schema.properties.s.maxLength",
	  "args.s: must be at most 3 characters long" },
	{ "input_schema.properties.e.enum",
	  "args.e: must be one of \"a\", \"b\"" },
	{ "input_schema.properties.c.const",
	  "args.c: must be 7" },
	{ "input_schema.properties.x.type",
	  "args.x: must be a number" },
	{ "input_schema.properties.x.exclusiveMinimum",
	  "args.x: must be > 0" },
	{ "input_schema.properties.x.exclusiveMaximum",
	  "args.x: must be < 1" },
	{ "input_schema.properties.xs.type",
	  "args.xs: must be an array" },
	{ "input_schema.properties.xs.minItems",
	  "args.xs: must have at least 1 item" },
	{ "input_schema.properties.xs.uniqueItems",
	  "args.xs[1]: duplicate of item [0] (uniqueItems)" },
	{ "input_schema.properties.o.type",
	  "args.o: must be an object" },
	{ "input_schema.properties.o.required (d)",
	  "args.o.d: required property is missing" },
	{ "input_schema.properties.o.additionalProperties",
	  "args.o.tg_extra: property not allowed (additionalProperties is false)" },
	{ "input_schema.properties.o.properties.d.type",
	  "args.o.d: must be a string" },
	{ "input_schema.properties.o.properties.d.format",
	  "args.o.d: must be a valid date (format)" },
};
#define NWANT (sizeof(WANT) / sizeof(*WANT))

static json_t *load(const char *t)
{
	json_t *j = json_loads(t, 0, NULL);
	assert_non_null(j);
	return j;
}

/* Each input differs from the base at one place only (a key changed,
 * removed or added, at the top or in "o"). */
static int one_change(const json_t *base, const json_t *args)
{
	size_t diff = 0;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)base, k, v)
		diff += !json_equal(v, json_object_get(args, k));
	json_object_foreach((json_t *)args, k, v)
		diff += !json_object_get(base, k);
	return diff == 1;
}

static void check_list(unsigned sflags, size_t want_n)
{
	json_t *schema = load(SCHEMA), *base = load(BASE), *out = NULL, *v;
	tg_schema *cs = NULL;
	size_t i;

	assert_int_equal(tg_schema_compile(&cs, schema, "input_schema", TG_SCHEMA_TOP_OBJECT | sflags), 0);
	assert_int_equal(tg_schema_run(cs, base, "args"), 0);
	assert_int_equal(reg_propbad(&out, schema, base, sflags), 0);
	assert_int_equal(json_array_size(out), want_n);
	json_array_foreach(out, i, v) {
		json_t *args = json_object_get(v, "args");
		assert_string_equal(json_string_value(json_object_get(v, "constraint")), WANT[i][0]);
		assert_true(one_change(base, args));
		assert_int_equal(tg_schema_run(cs, args, "args"), TG_ERR_INVALID);
		assert_string_equal(tg_error_last()->message, WANT[i][1]);
		tg_error_clear();
	}
	tg_schema_free(cs);
	json_decref(out);
	json_decref(base);
	json_decref(schema);
}

static void test_each_constraint(void **state)
{
	(void)state;
	check_list(TG_SCHEMA_ASSERT_FORMAT, NWANT);
}

/* format is an annotation: no input breaks it (the last of WANT) */
static void test_format_annotation(void **state)
{
	(void)state;
	assert_string_equal(WANT[NWANT - 1][0], "input_schema.properties.o.properties.d.format");
	check_list(0, NWANT - 1);
}

/* No conforming input (none could be generated): no violation either. */
static void test_no_base(void **state)
{
	json_t *schema = load(SCHEMA), *out = NULL;
	(void)state;
	assert_int_equal(reg_propbad(&out, schema, NULL, 0), 0);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
	json_decref(schema);
}

/* A compiled schema that accepts a violating input fails the create,
 * naming the constraint; the violations before it were refused. */
static void test_accepted_fails(void **state)
{
	json_t *schema = load(SCHEMA), *inputs = json_pack("[{s:i, s:s}, o]", "n", 2, "s", "a", load(BASE));
	json_t *loose = load(SCHEMA), *sum = json_object(), *tests = json_array();
	tg_schema *cs = NULL;
	char *reason = NULL;
	(void)state;

	/* stands for a validator that would not enforce s's maxLength */
	json_object_del(json_object_get(json_object_get(loose, "properties"), "s"), "maxLength");
	assert_int_equal(tg_schema_compile(&cs, loose, "input_schema", TG_SCHEMA_TOP_OBJECT), 0);
	assert_int_equal(reg_propbad_check(sum, tests, &reason, cs, schema, inputs, 0), 1);
	assert_string_equal(reason,
			    "property test violation 10 failed: input_schema.properties.s.maxLength is not "
			    "enforced: input_schema accepted args {\"n\":4,\"s\":\"aaaa\",\"e\":\"a\",\"c\":7,"
			    "\"x\":0.5,\"xs\":[1],\"o\":{\"d\":\"2024-01-01\"}}, which break it");
	assert_string_equal(json_string_value(json_object_get(sum, "failed")), "violation 10");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(sum, "violations"), "generated")),
			 NWANT - 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(sum, "violations"), "refused")), 9);
	assert_int_equal(json_array_size(tests), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(tests, 0), "name")), "violation 10");
	assert_true(json_is_false(json_object_get(json_array_get(tests, 0), "passed")));
	free(reason);
	reason = NULL;
	tg_schema_free(cs);

	/* the strict schema refuses them all */
	json_decref(sum);
	json_decref(tests);
	sum = json_object();
	tests = json_array();
	assert_int_equal(tg_schema_compile(&cs, schema, "input_schema", TG_SCHEMA_TOP_OBJECT), 0);
	assert_int_equal(reg_propbad_check(sum, tests, &reason, cs, schema, inputs, 0), 0);
	assert_null(reason);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(sum, "violations"), "refused")),
			 NWANT - 1);
	assert_int_equal(json_array_size(tests), 0);
	tg_schema_free(cs);
	json_decref(sum);
	json_decref(tests);
	json_decref(loose);
	json_decref(inputs);
	json_decref(schema);
}

/* A long multi-byte property name is cut on a character boundary in the
 * constraint's path: "x" and 31 two-byte characters (63 bytes), not 64
 * bytes ending in half a character (a string jansson would refuse). */
static void test_long_key(void **state)
{
	char key[142] = "x", want[200] = "input_schema.properties.";
	json_t *schema, *base, *out = NULL;
	(void)state;

	for (int i = 0; i < 70; i++)
		memcpy(key + 1 + 2 * i, "\xc3\xa9", 2);
	key[141] = 0;
	schema = json_pack("{s:s, s:{s:{s:s}}}", "type", "object", "properties", key, "type", "integer");
	base = json_pack("{s:i}", key, 1);
	assert_non_null(schema);
	assert_non_null(base);
	assert_int_equal(reg_propbad(&out, schema, base, 0), 0);
	assert_int_equal(json_array_size(out), 1);
	memcpy(want + 24, key, 63);
	strcpy(want + 24 + 63, ".type");
	assert_string_equal(json_string_value(json_object_get(json_array_get(out, 0), "constraint")), want);
	json_decref(out);
	json_decref(base);
	json_decref(schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_constraint),
		cmocka_unit_test(test_format_annotation),
		cmocka_unit_test(test_no_base),
		cmocka_unit_test(test_accepted_fails),
		cmocka_unit_test(test_long_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
