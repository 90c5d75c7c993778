/*
 * tests/registry/test_propgen.c: the inputs of property tests
 * (registry/create/propgen.c) on their own, no sandbox: the same content
 * hash gives the same inputs and another hash other ones; every input
 * conforms to the schema; the boundaries are there (minimum and maximum,
 * exclusive bounds, the longest string in ASCII and in multi-byte UTF-8,
 * capped at 10,000 code points, the empty array and the longest one, each
 * enum value, optional properties absent and present); a pattern is taken
 * only from the schema's examples, and left out with a note without them;
 * prefixItems, patternProperties, allOf and multipleOf are generated for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "registry/create/create.h"

static const char *const H1 = "778e495935bacd71e893797dd502dbd8ff512d5bd4325e705a81d324e29b902a";
static const char *const H2 = "128998a0664b1fc59229de31c7f4df7bd5e3337d7994cc56cda68a51ea359f6c";

static const char *const SCHEMA =
	"{\"type\":\"object\",\"properties\":{"
	"\"text\":{\"type\":\"string\",\"maxLength\":32},"
	"\"n\":{\"type\":\"integer\",\"minimum\":-5,\"maximum\":65536},"
	"\"k\":{\"type\":\"integer\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":10},"
	"\"unit\":{\"enum\":[\"m\",\"cm\",\"mi\"]},"
	"\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"boolean\"},\"maxItems\":3},"
	"\"flag\":{\"type\":\"boolean\"}},"
	"\"required\":[\"text\",\"n\"],\"additionalProperties\":false}";

static json_t *gen(const char *schema_text, const char *hash, unsigned n, json_t **notes)
{
	json_t *schema = json_loads(schema_text, 0, NULL), *out = NULL, *ns = NULL;

	assert_non_null(schema);
	assert_int_equal(reg_propgen(&out, &ns, schema, hash, n, 0), 0);
	assert_non_null(out);
	if (notes)
		*notes = ns;
	else
		json_decref(ns);
	json_decref(schema);
	return out;
}

static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Some input whose key k has exactly v (compact JSON). */
static int has(const json_t *ins, const char *k, const char *v)
{
	json_t *in;
	size_t i;

	json_array_foreach(ins, i, in) {
		json_t *x = json_object_get(in, k);
		char *s = x ? json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
		int eq = s && strcmp(s, v) == 0;
		free(s);
		if (eq)
			return 1;
	}
	return 0;
}

static void test_deterministic(void **state)
{
	(void)state;
	json_t *a = gen(SCHEMA, H1, 64, NULL), *b = gen(SCHEMA, H1, 64, NULL);
	json_t *c = gen(SCHEMA, H2, 64, NULL);

	assert_int_equal(json_array_size(a), 64);
	assert_true(json_equal(a, b));
	assert_false(json_equal(a, c));
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

static void test_conform_and_bounds(void **state)
{
	(void)state;
	json_t *schema = json_loads(SCHEMA, 0, NULL);
	json_t *ins = gen(SCHEMA, H1, 64, NULL), *in;
	size_t i;
	int longest_ascii = 0, longest_multi = 0, absent = 0, present = 0;

	json_array_foreach(ins, i, in) {
		const char *t = json_string_value(json_object_get(in, "text"));
		assert_int_equal(tg_schema_validate(schema, in), 0);
		assert_non_null(t);
		if (utf8_len(t) == 32)
			*(strlen(t) == 32 ? &longest_ascii : &longest_multi) += 1;
		absent += !json_object_get(in, "flag") && !json_object_get(in, "unit");
		present += json_object_size(in) == 6;
	}
	assert_true(longest_ascii > 0);
	assert_true(longest_multi > 0);
	assert_true(absent > 0);
	assert_true(present > 0);
	assert_true(has(ins, "n", "-5"));
	assert_true(has(ins, "n", "65536"));
	assert_true(has(ins, "k", "1"));
	assert_true(has(ins, "k", "9"));
	assert_true(has(ins, "unit", "\"m\""));
	assert_true(has(ins, "unit", "\"cm\""));
	assert_true(has(ins, "unit", "\"mi\""));
	assert_true(has(ins, "tags", "[]"));
	assert_true(has(ins, "text", "\"\""));
	json_decref(ins);
	json_decref(schema);
}

static void test_string_cap(void **state)
{
	(void)state;
	json_t *ins = gen("{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"}},"
			  "\"required\":[\"s\"]}",
			  H1, 64, NULL), *in;
	size_t i, longest = 0;

	json_array_foreach(ins, i, in) {
		size_t l = utf8_len(json_string_value(json_object_get(in, "s")));
		if (l > longest)
			longest = l;
	}
	assert_int_equal(longest, 10000);
	json_decref(ins);
}

static void test_pattern(void **state)
{
	(void)state;
	json_t *notes = NULL, *in;
	json_t *ins = gen("{\"type\":\"object\",\"properties\":{"
			  "\"code\":{\"type\":\"string\",\"pattern\":\"^[A-Z]{3}$\"},"
			  "\"lang\":{\"type\":\"string\",\"pattern\":\"^[a-z]{2}$\","
			  "\"examples\":[\"en\",\"fr\"]}}}",
			  H1, 64, &notes);
	size_t i;

	assert_int_equal(json_array_size(ins), 3); /* {}, en, fr */
	json_array_foreach(ins, i, in)
		assert_null(json_object_get(in, "code"));
	assert_true(has(ins, "lang", "\"en\""));
	assert_true(has(ins, "lang", "\"fr\""));
	assert_int_equal(json_array_size(notes), 1);
	assert_string_equal(json_string_value(json_array_get(notes, 0)),
			    "code: a string with a pattern and no examples, default, const or "
			    "enum is not generated");
	json_decref(notes);
	json_decref(ins);

	/* a required one: nothing at all can be generated */
	ins = gen("{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\","
		  "\"pattern\":\"^[A-Z]{3}$\"}},\"required\":[\"code\"]}",
		  H1, 64, &notes);
	assert_int_equal(json_array_size(ins), 0);
	assert_int_equal(json_array_size(notes), 1);
	json_decref(notes);
	json_decref(ins);
}

/* Inputs that reach what the generator once left out: prefixItems
 * position by position, a property named after a patternProperties key,
 * allOf merged (bounds of two members), multipleOf within the bounds. Each
 * input conforms (gen() checks them all through the schema). */
static void test_gaps(void **state)
{
	(void)state;
	json_t *ins = gen("{\"type\":\"object\",\"properties\":{"
			  "\"pair\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"integer\","
			  "\"minimum\":7,\"maximum\":7},{\"enum\":[\"p\"]}],\"items\":false},"
			  "\"n\":{\"allOf\":[{\"type\":\"integer\",\"minimum\":3},{\"maximum\":9},"
			  "{\"minimum\":4}]},"
			  "\"m\":{\"type\":\"integer\",\"multipleOf\":5,\"minimum\":1,\"maximum\":23},"
			  "\"q\":{\"type\":\"number\",\"multipleOf\":0.25,\"exclusiveMinimum\":0}},"
			  "\"patternProperties\":{\"^x_\":{\"type\":\"boolean\"}},"
			  "\"additionalProperties\":false}",
			  H1, 64, NULL);
	json_t *in;
	size_t i;
	int pat = 0;

	assert_true(has(ins, "pair", "[7,\"p\"]"));
	assert_true(has(ins, "pair", "[]"));
	assert_true(has(ins, "n", "4")); /* the larger minimum of allOf */
	assert_true(has(ins, "n", "9"));
	assert_false(has(ins, "n", "3"));
	assert_true(has(ins, "m", "5"));
	assert_true(has(ins, "m", "20"));
	assert_true(has(ins, "q", "0.25"));
	json_array_foreach(ins, i, in) {
		json_t *m = json_object_get(in, "m");
		assert_true(!m || json_integer_value(m) % 5 == 0);
		pat |= json_is_boolean(json_object_get(in, "x_k"));
	}
	assert_true(pat);
	json_decref(ins);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_conform_and_bounds),
		cmocka_unit_test(test_string_cap),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_gaps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
