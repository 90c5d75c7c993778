/*
 * tests/schema/test_schema.c: cmocka tests of registry/schema/: every
 * keyword accepted and enforced, every refused or malformed keyword refused
 * with the exact path message, the limits on schemas and on validation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "registry/schema/schema.h"

static json_t *parse(const char *text)
{
	json_t *v = NULL;
	int r = tg_json_parse(&v, text, strlen(text), NULL);
	if (r < 0)
		fail_msg("test JSON does not parse: %s: %s", text, tg_error_last()->message);
	return v;
}

/* Check schema text; want NULL = accepted, else the exact message. */
static void expect_schema(const char *schema, const char *want)
{
	json_t *s = parse(schema);
	int r;
	tg_error_clear();
	r = tg_schema_check(s);
	if (!want) {
		if (r != 0)
			fail_msg("schema %s refused: %s", schema, tg_error_last()->message);
	} else {
		if (r == 0)
			fail_msg("schema %s accepted, want: %s", schema, want);
		if (strcmp(tg_error_last()->message, want))
			fail_msg("schema %s\n got: %s\nwant: %s", schema, tg_error_last()->message, want);
	}
	json_decref(s);
}

static void expect_valid(const char *schema, const char *value, const char *want)
{
	json_t *s = parse(schema), *v = parse(value);
	int r;
	if (tg_schema_check(s) != 0)
		fail_msg("schema %s refused: %s", schema, tg_error_last()->message);
	tg_error_clear();
	r = tg_schema_validate(s, v);
	if (!want) {
		if (r != 0)
			fail_msg("%s against %s refused: %s", value, schema, tg_error_last()->message);
	} else {
		if (r != TG_ERR_INVALID)
			fail_msg("%s against %s: got %d, want a refusal: %s", value, schema, r, want);
		if (strcmp(tg_error_last()->message, want))
			fail_msg("%s against %s\n got: %s\nwant: %s", value, schema, tg_error_last()->message,
				 want);
	}
	json_decref(s);
	json_decref(v);
}

static void check_top_level(void **state)
{
	(void)state;
	expect_schema("{\"type\":\"object\"}", NULL);
	expect_schema("[]", "input_schema: must be an object");
	expect_schema("{}", "input_schema.type: must be \"object\" (the arguments are one JSON object)");
	expect_schema("{\"type\":\"string\"}",
		     "input_schema.type: must be \"object\" (the arguments are one JSON object)");
	expect_schema("{\"type\":[\"object\"]}",
		     "input_schema.type: must be \"object\" (the arguments are one JSON object)");
	expect_schema("{\"type\":\"object\",\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
		     "\"title\":\"t\",\"description\":\"d\",\"default\":{\"x\":1}}", NULL);
	expect_schema("{\"type\":\"object\",\"title\":5}", "input_schema.title: must be a string");
	expect_schema("{\"type\":\"object\",\"$schema\":true}", "input_schema.$schema: must be a string");
}

static void check_full_schema_accepted(void **state)
{
	(void)state;
	expect_schema("{\"type\":\"object\",\"properties\":{"
		     "\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100,\"description\":\"x\"},"
		     "\"n\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10},"
		     "\"x\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":1.5},"
		     "\"mode\":{\"enum\":[\"a\",\"b\",1,null]},"
		     "\"flag\":{\"type\":\"boolean\",\"default\":false},"
		     "\"opt\":{\"type\":[\"string\",\"null\"]},"
		     "\"any\":{},"
		     "\"xs\":{\"type\":\"array\",\"items\":{\"type\":\"number\"},\"minItems\":1,\"maxItems\":5},"
		     "\"pt\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}},"
		     "\"required\":[\"x\"],\"additionalProperties\":false}},"
		     "\"required\":[\"text\"],\"additionalProperties\":true}", NULL);
}

static void check_refused_keywords(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"patern\":\"^a\"}}}",
		 "input_schema.properties.s.patern: unknown keyword (toolgate refuses what it would not "
		 "enforce: docs/SCHEMA.md lists the JSON Schema 2020-12 keywords it supports)"},
		{"{\"type\":\"object\",\"properties\":{\"a b\":{\"x-extension\":2}}}",
		 "input_schema.properties[\"a b\"].x-extension: unknown keyword (toolgate refuses what it "
		 "would not enforce: docs/SCHEMA.md lists the JSON Schema 2020-12 keywords it supports)"},
		{"{\"type\":\"object\",\"definitions\":{}}",
		 "input_schema.definitions: not a JSON Schema 2020-12 keyword (use $defs)"},
		{"{\"type\":\"object\",\"dependencies\":{}}",
		 "input_schema.dependencies: not a JSON Schema 2020-12 keyword (use dependentRequired or "
		 "dependentSchemas)"},
		{"{\"type\":\"object\",\"properties\":{\"t\":{\"$dynamicRef\":\"#node\"}}}",
		 "input_schema.properties.t.$dynamicRef: not supported (dynamic references: use $ref and "
		 "$defs within the document)"},
		{"{\"type\":\"object\",\"$defs\":{\"n\":{\"$dynamicAnchor\":\"node\"}}}",
		 "input_schema.$defs.n.$dynamicAnchor: not supported (dynamic references: use $ref and "
		 "$defs within the document)"},
		{"{\"type\":\"object\",\"$recursiveRef\":\"#\"}",
		 "input_schema.$recursiveRef: not supported (dynamic references: use $ref and $defs "
		 "within the document)"},
		{"{\"type\":\"object\",\"$vocabulary\":{}}",
		 "input_schema.$vocabulary: not supported (custom vocabularies: only the JSON Schema "
		 "2020-12 applicator, validation, format and meta-data keywords are)"},
		{"{\"type\":\"object\",\"$schema\":\"http://json-schema.org/draft-07/schema#\"}",
		 "input_schema.$schema: only JSON Schema 2020-12 is supported "
		 "(\"https://json-schema.org/draft/2020-12/schema\")"},
		{"{\"type\":\"object\",\"properties\":{\"u\":{\"$ref\":\"https://example.com/u.json\"}}}",
		 "input_schema.properties.u.$ref: \"https://example.com/u.json\" is outside this schema "
		 "(remote references are not supported: put the schema under $defs)"},
		{"{\"type\":\"object\",\"properties\":{\"u\":{\"$ref\":\"other.json#/x\"}}}",
		 "input_schema.properties.u.$ref: \"other.json#/x\" is outside this schema (remote "
		 "references are not supported: put the schema under $defs)"},
		{"{\"type\":\"object\",\"properties\":{\"u\":{\"$ref\":\"#/$defs/missing\"}}}",
		 "input_schema.properties.u.$ref: \"#/$defs/missing\" points to nothing in the document"},
		{"{\"type\":\"object\",\"properties\":{\"u\":{\"$ref\":\"#nowhere\"}}}",
		 "input_schema.properties.u.$ref: no $anchor \"#nowhere\" in the document"},
		{"{\"type\":\"object\",\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"allOf\":[{\"$ref\":\"#/$defs/a\"}]}},"
		 "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a\"}}}",
		 "input_schema.$defs.b.allOf[0]: a cycle of $ref that does not consume input (it comes "
		 "back to input_schema.$defs.a without going into a property or an item)"},
		{"{\"type\":\"object\",\"allOf\":[{\"$ref\":\"#\"}]}",
		 "input_schema.allOf[0]: a cycle of $ref that does not consume input (it comes back to "
		 "input_schema without going into a property or an item)"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"pattern\":\"(a\"}}}",
		 "input_schema.properties.s.pattern: not a valid regular expression (missing closing "
		 "parenthesis at offset 2)"},
		{"{\"type\":\"object\",\"patternProperties\":{\"[\":{}}}",
		 "input_schema.patternProperties[\"[\"]: not a valid regular expression (missing "
		 "terminating ] for character class at offset 1)"},
		{"{\"type\":\"object\",\"$defs\":{\"a\":{\"$id\":\"x.json#frag\"}}}",
		 "input_schema.$defs.a.$id: must not have a fragment (use $anchor to name a subschema)"},
		{"{\"type\":\"object\",\"$defs\":{\"a\":{\"$anchor\":\"1x\"}}}",
		 "input_schema.$defs.a.$anchor: must be a plain name (a letter or _, then letters, "
		 "digits, -, _, .)"},
		{"{\"type\":\"object\",\"$defs\":{\"a\":{\"$anchor\":\"x\"},\"b\":{\"$anchor\":\"x\"}}}",
		 "input_schema.$defs.b: $anchor \"tg-schema://document/root.json#x\" is already used by "
		 "input_schema.$defs.a"},
		{"{\"type\":\"object\",\"properties\":{\"n\":{\"multipleOf\":0}}}",
		 "input_schema.properties.n.multipleOf: must be a number greater than 0"},
		{"{\"type\":\"object\",\"anyOf\":[]}", "input_schema.anyOf: must be a non-empty array of schemas"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"format\":5}}}",
		 "input_schema.properties.s.format: must be a string"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"uniqueItems\":true}}}",
		 "input_schema.properties.s.uniqueItems: applies only to arrays, but type is string"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"dependentRequired\":{}}}}",
		 "input_schema.properties.s.dependentRequired: applies only to objects, but type is string"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_schema(cases[i][0], cases[i][1]);
}

static void check_2020_12_accepted(void **state)
{
	(void)state;
	expect_schema("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://x.example/t.json\","
		     "\"type\":\"object\",\"$comment\":\"c\",\"$defs\":{\"pos\":{\"$anchor\":\"pos\",\"type\":\"integer\","
		     "\"exclusiveMinimum\":0},\"tree\":{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\","
		     "\"items\":{\"$ref\":\"#/$defs/tree\"}}}}},"
		     "\"properties\":{\"n\":{\"$ref\":\"#pos\",\"deprecated\":true},\"m\":{\"$ref\":\"t.json#/$defs/pos\"},"
		     "\"s\":{\"type\":\"string\",\"pattern\":\"^\\\\p{L}+$\",\"format\":\"email\",\"examples\":[\"a\"]},"
		     "\"c\":{\"const\":3},\"o\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},"
		     "\"a\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"}],\"items\":false,"
		     "\"contains\":{\"const\":\"x\"},\"minContains\":1,\"maxContains\":2,\"uniqueItems\":true},"
		     "\"t\":{\"$ref\":\"#/$defs/tree\"},\"b\":true,\"z\":false},"
		     "\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":{\"type\":\"number\"},"
		     "\"propertyNames\":{\"maxLength\":20},\"dependentRequired\":{\"n\":[\"m\"]},"
		     "\"dependentSchemas\":{\"c\":{\"required\":[\"n\"]}},\"if\":{\"required\":[\"a\"]},"
		     "\"then\":{\"minProperties\":2},\"else\":{\"maxProperties\":10},\"not\":{\"required\":[\"bad\"]},"
		     "\"unevaluatedProperties\":false,\"readOnly\":false,\"writeOnly\":false}", NULL);
	/* an empty enum is valid 2020-12 (nothing matches it) */
	expect_schema("{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[]}}}", NULL);
	/* asserted formats are a closed list; without the flag any name is an annotation */
	json_t *s = parse("{\"type\":\"object\",\"properties\":{\"d\":{\"format\":\"hostname\"}}}");
	tg_schema *c = NULL;
	assert_int_equal(tg_schema_compile(&c, s, "input_schema", TG_SCHEMA_TOP_OBJECT), 0);
	tg_schema_free(c);
	assert_int_equal(tg_schema_compile(&c, s, "input_schema", TG_SCHEMA_TOP_OBJECT | TG_SCHEMA_ASSERT_FORMAT),
			 TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message,
			    "input_schema.properties.d.format: unknown format (asserted formats: date, time, "
			    "date-time, email, ipv4, ipv6, uuid, uri)");
	assert_null(c);
	json_decref(s);
}

static void check_malformed_keywords(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{"{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":\"1\"}}}",
		 "input_schema.properties.n.minimum: must be a number"},
		{"{\"type\":\"object\",\"properties\":{\"n\":{\"maximum\":null}}}",
		 "input_schema.properties.n.maximum: must be a number"},
		{"{\"type\":\"object\",\"properties\":{\"n\":{\"exclusiveMinimum\":true}}}",
		 "input_schema.properties.n.exclusiveMinimum: must be a number (the draft-04 boolean form is not supported)"},
		{"{\"type\":\"object\",\"properties\":{\"n\":{\"exclusiveMaximum\":\"x\"}}}",
		 "input_schema.properties.n.exclusiveMaximum: must be a number"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"minLength\":-1}}}",
		 "input_schema.properties.s.minLength: must be a non-negative integer"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"maxLength\":1.5}}}",
		 "input_schema.properties.s.maxLength: must be a non-negative integer"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"minItems\":\"2\"}}}",
		 "input_schema.properties.a.minItems: must be a non-negative integer"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"maxItems\":true}}}",
		 "input_schema.properties.a.maxItems: must be a non-negative integer"},
		{"{\"type\":\"object\",\"properties\":[]}",
		 "input_schema.properties: must be an object of schemas"},
		{"{\"type\":\"object\",\"properties\":{\"a\":5}}",
		 "input_schema.properties.a: must be a schema (an object, true or false)"},
		{"{\"type\":\"object\",\"required\":\"a\"}",
		 "input_schema.required: must be an array of property names"},
		{"{\"type\":\"object\",\"required\":[\"a\",3]}", "input_schema.required[1]: must be a string"},
		{"{\"type\":\"object\",\"required\":[\"a\",\"a\"]}", "input_schema.required: duplicate name \"a\""},
		{"{\"type\":\"object\",\"additionalProperties\":\"no\"}",
		 "input_schema.additionalProperties: must be a schema (an object, true or false)"},
		{"{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":\"a\"}}}",
		 "input_schema.properties.e.enum: must be an array"},
		{"{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[1,\"a\",1.0]}}}",
		 "input_schema.properties.e.enum[2]: duplicate value"},
		{"{\"type\":\"object\",\"properties\":{\"e\":{\"type\":\"string\",\"enum\":[\"a\",2]}}}",
		 "input_schema.properties.e.enum[1]: is not of the schema's type (string)"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"items\":[{}]}}}",
		 "input_schema.properties.a.items: must be one schema (the tuple form is prefixItems in JSON Schema 2020-12)"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"items\":7}}}",
		 "input_schema.properties.a.items: must be a schema (an object, true or false)"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"text\"}}}",
		 "input_schema.properties.a.type: must be one of \"object\", \"array\", \"string\", \"integer\", \"number\", \"boolean\", \"null\""},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"float\"]}}}",
		 "input_schema.properties.a.type[1]: must be one of \"object\", \"array\", \"string\", \"integer\", \"number\", \"boolean\", \"null\""},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"string\"]}}}",
		 "input_schema.properties.a.type[1]: duplicate type \"string\""},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[]}}}",
		 "input_schema.properties.a.type: must be a type name or a non-empty array of type names"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":3}}}",
		 "input_schema.properties.a.type: must be a type name or a non-empty array of type names"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"description\":[]}}}",
		 "input_schema.properties.a.description: must be a string"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_schema(cases[i][0], cases[i][1]);
}

static void check_applicability_and_bounds(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{"{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minLength\":1}}}",
		 "input_schema.properties.n.minLength: applies only to strings, but type is integer"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"maximum\":1}}}",
		 "input_schema.properties.s.maximum: applies only to numbers, but type is string"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":[\"string\",\"null\"],\"items\":{}}}}",
		 "input_schema.properties.s.items: applies only to arrays, but type is string, null"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"array\",\"required\":[]}}}",
		 "input_schema.properties.s.required: applies only to objects, but type is array"},
		{"{\"type\":\"object\",\"properties\":{\"n\":{\"minimum\":5,\"maximum\":4.5}}}",
		 "input_schema.properties.n: minimum is greater than maximum"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"minLength\":3,\"maxLength\":2}}}",
		 "input_schema.properties.s: minLength is greater than maxLength"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"minItems\":3,\"maxItems\":1}}}",
		 "input_schema.properties.a: minItems is greater than maxItems"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{}},\"required\":[\"a\",\"b\"],"
		 "\"additionalProperties\":false}",
		 "input_schema.required: \"b\" is not in properties and additionalProperties is false"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_schema(cases[i][0], cases[i][1]);
	/* no type: every keyword may apply */
	expect_schema("{\"type\":\"object\",\"properties\":{\"a\":{\"minLength\":1,\"minimum\":0,\"items\":{}}}}",
		     NULL);
	/* equal bounds are fine; integral reals count as integers */
	expect_schema("{\"type\":\"object\",\"properties\":{\"a\":{\"minLength\":2.0,\"maxLength\":2}}}", NULL);
}

static void check_depth_cap(void **state)
{
	(void)state;
	char buf[4096];
	size_t n = 0;
	int levels;
	/* 31 nested items levels below the top: accepted; 32: refused */
	for (int round = 0; round < 2; round++) {
		levels = round == 0 ? 31 : 32;
		n = (size_t)snprintf(buf, sizeof(buf), "{\"type\":\"object\",\"properties\":{\"a\":");
		for (int i = 1; i < levels; i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{\"items\":");
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{}");
		for (int i = 1; i < levels; i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "}");
		snprintf(buf + n, sizeof(buf) - n, "}}");
		json_t *s = parse(buf);
		int r = tg_schema_check(s);
		if (round == 0) {
			assert_int_equal(r, 0);
		} else {
			assert_int_equal(r, TG_ERR_LIMIT);
			assert_non_null(strstr(tg_error_last()->message, ": schemas nested deeper than 32 levels"));
			assert_int_equal(strncmp(tg_error_last()->message, "input_schema.properties.a.items.items", 37), 0);
		}
		json_decref(s);
	}
}

/* enum and required are checked pairwise for duplicates: capped at 1024 */
static void check_list_caps(void **state)
{
	(void)state;
	for (int round = 0; round < 4; round++) {
		int n = round % 2 ? 1025 : 1024, is_enum = round < 2;
		tg_buf b = TG_BUF_INIT(0);
		json_t *s;
		int r;
		tg_buf_puts(&b, is_enum ? "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":["
					: "{\"type\":\"object\",\"required\":[");
		for (int i = 0; i < n; i++)
			tg_buf_printf(&b, "%s\"v%d\"", i ? "," : "", i);
		tg_buf_puts(&b, is_enum ? "]}}}" : "]}");
		s = parse(b.ptr);
		uint64_t t0 = tg_now_ms();
		r = tg_schema_check(s);
		assert_true(tg_now_ms() - t0 < 2000);
		if (n == 1024) {
			assert_int_equal(r, 0);
		} else {
			assert_int_equal(r, TG_ERR_LIMIT);
			assert_string_equal(tg_error_last()->message,
					    is_enum ? "input_schema.properties.e.enum: more than 1024 values"
						    : "input_schema.required: more than 1024 names");
		}
		json_decref(s);
		tg_buf_free(&b);
	}
}

static void check_long_paths_are_bounded(void **state)
{
	(void)state;
	char key[3000];
	char schema[4000];
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	key[10] = ' '; /* not a plain key: quoted and truncated */
	snprintf(schema, sizeof(schema), "{\"type\":\"object\",\"properties\":{\"%s\":{\"bad\":1}}}", key);
	json_t *s = parse(schema);
	assert_int_equal(tg_schema_check(s), TG_ERR_INVALID);
	const char *m = tg_error_last()->message;
	assert_true(strlen(m) < 700);
	assert_int_equal(strncmp(m, "input_schema.properties[\"kkkkkkkkkk kkk", 39), 0);
	assert_non_null(strstr(m, "...\"].bad: unknown keyword"));
	json_decref(s);
}

#define OBJ(props) "{\"type\":\"object\",\"properties\":{" props "}}"

static void validate_types(void **state)
{
	(void)state;
	expect_valid(OBJ("\"t\":{\"type\":\"string\"}"), "{\"t\":\"x\"}", NULL);
	expect_valid(OBJ("\"t\":{\"type\":\"string\"}"), "{\"t\":5}", "args.t: must be a string");
	expect_valid(OBJ("\"t\":{\"type\":\"string\"}"), "{}", NULL);
	expect_valid(OBJ(""), "[]", "args: must be an object");
	expect_valid(OBJ(""), "\"x\"", "args: must be an object");
	expect_valid(OBJ("\"n\":{\"type\":\"integer\"}"), "{\"n\":5}", NULL);
	expect_valid(OBJ("\"n\":{\"type\":\"integer\"}"), "{\"n\":-5.0}", NULL);
	expect_valid(OBJ("\"n\":{\"type\":\"integer\"}"), "{\"n\":1e3}", NULL);
	expect_valid(OBJ("\"n\":{\"type\":\"integer\"}"), "{\"n\":5.5}", "args.n: must be an integer");
	expect_valid(OBJ("\"n\":{\"type\":\"integer\"}"), "{\"n\":1e30}", "args.n: must be an integer");
	expect_valid(OBJ("\"n\":{\"type\":\"integer\"}"), "{\"n\":\"5\"}", "args.n: must be an integer");
	expect_valid(OBJ("\"n\":{\"type\":\"integer\"}"), "{\"n\":true}", "args.n: must be an integer");
	expect_valid(OBJ("\"x\":{\"type\":\"number\"}"), "{\"x\":5}", NULL);
	expect_valid(OBJ("\"x\":{\"type\":\"number\"}"), "{\"x\":0.25}", NULL);
	expect_valid(OBJ("\"x\":{\"type\":\"number\"}"), "{\"x\":null}", "args.x: must be a number");
	expect_valid(OBJ("\"b\":{\"type\":\"boolean\"}"), "{\"b\":false}", NULL);
	expect_valid(OBJ("\"b\":{\"type\":\"boolean\"}"), "{\"b\":0}", "args.b: must be a boolean");
	expect_valid(OBJ("\"z\":{\"type\":\"null\"}"), "{\"z\":null}", NULL);
	expect_valid(OBJ("\"z\":{\"type\":\"null\"}"), "{\"z\":{}}", "args.z: must be null");
	expect_valid(OBJ("\"a\":{\"type\":\"array\"}"), "{\"a\":{}}", "args.a: must be an array");
	expect_valid(OBJ("\"o\":{\"type\":\"object\"}"), "{\"o\":[]}", "args.o: must be an object");
	expect_valid(OBJ("\"u\":{\"type\":[\"string\",\"null\"]}"), "{\"u\":null}", NULL);
	expect_valid(OBJ("\"u\":{\"type\":[\"string\",\"null\"]}"), "{\"u\":1}", "args.u: must be a string or null");
	expect_valid(OBJ("\"u\":{\"type\":[\"integer\",\"string\",\"boolean\"]}"), "{\"u\":1.5}",
		     "args.u: must be a string, an integer or a boolean");
	expect_valid(OBJ("\"any\":{}"), "{\"any\":[1,{\"x\":null}]}", NULL);
}

static void validate_required_and_additional(void **state)
{
	(void)state;
	const char *s = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},\"n\":{}},"
			"\"required\":[\"text\",\"n\"],\"additionalProperties\":false}";
	expect_valid(s, "{\"text\":\"a\",\"n\":1}", NULL);
	expect_valid(s, "{\"n\":1}", "args.text: required property is missing");
	expect_valid(s, "{\"text\":\"a\"}", "args.n: required property is missing");
	expect_valid(s, "{\"text\":\"a\",\"n\":1,\"extra\":2}",
		     "args.extra: property not allowed (additionalProperties is false)");
	expect_valid(s, "{\"text\":\"a\",\"n\":1,\"we ird\":2}",
		     "args[\"we ird\"]: property not allowed (additionalProperties is false)");
	expect_valid("{\"type\":\"object\",\"required\":[\"x\"]}", "{\"x\":[]}", NULL);
	expect_valid("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}",
		     "{\"a\":\"s\",\"b\":99}", NULL);
	/* nested objects */
	expect_valid(OBJ("\"pt\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}},"
			 "\"required\":[\"x\"]}"),
		     "{\"pt\":{}}", "args.pt.x: required property is missing");
	expect_valid(OBJ("\"pt\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}}}"),
		     "{\"pt\":{\"x\":\"1\"}}", "args.pt.x: must be a number");
}

static void validate_numbers(void **state)
{
	(void)state;
	const char *s = OBJ("\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10}");
	expect_valid(s, "{\"n\":1}", NULL);
	expect_valid(s, "{\"n\":10}", NULL);
	expect_valid(s, "{\"n\":0}", "args.n: must be >= 1");
	expect_valid(s, "{\"n\":11}", "args.n: must be <= 10");
	expect_valid(s, "{\"n\":-9223372036854775808}", "args.n: must be >= 1");
	const char *x = OBJ("\"x\":{\"exclusiveMinimum\":0,\"exclusiveMaximum\":0.5}");
	expect_valid(x, "{\"x\":0.25}", NULL);
	expect_valid(x, "{\"x\":0}", "args.x: must be > 0");
	expect_valid(x, "{\"x\":0.0}", "args.x: must be > 0");
	expect_valid(x, "{\"x\":0.5}", "args.x: must be < 0.5");
	expect_valid(x, "{\"x\":1e300}", "args.x: must be < 0.5");
	expect_valid(x, "{\"x\":\"text\"}", NULL); /* no type: bounds apply to numbers only */
	/* exact comparison of large integers (no double rounding) */
	expect_valid(OBJ("\"n\":{\"maximum\":9007199254740992}"), "{\"n\":9007199254740993}",
		     "args.n: must be <= 9007199254740992");
	expect_valid(OBJ("\"n\":{\"minimum\":0.1}"), "{\"n\":0}", "args.n: must be >= 0.1");
}

static void validate_strings(void **state)
{
	(void)state;
	const char *s = OBJ("\"t\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}");
	expect_valid(s, "{\"t\":\"ab\"}", NULL);
	expect_valid(s, "{\"t\":\"abc\"}", NULL);
	expect_valid(s, "{\"t\":\"a\"}", "args.t: must be at least 2 characters long");
	expect_valid(s, "{\"t\":\"abcd\"}", "args.t: must be at most 3 characters long");
	/* code points, not bytes: "éé€" is 3 code points, 7 bytes; an emoji pair is 1+1 */
	expect_valid(s, "{\"t\":\"\xc3\xa9\xc3\xa9\xe2\x82\xac\"}", NULL);
	expect_valid(s, "{\"t\":\"\\ud83d\\ude00\\ud83d\\ude00\"}", NULL);
	expect_valid(s, "{\"t\":\"\\ud83d\\ude00\"}", "args.t: must be at least 2 characters long");
	expect_valid(OBJ("\"t\":{\"maxLength\":1}"), "{\"t\":\"ab\"}", "args.t: must be at most 1 character long");
	expect_valid(OBJ("\"t\":{\"minLength\":0}"), "{\"t\":\"\"}", NULL);
}

static void validate_arrays(void **state)
{
	(void)state;
	const char *s = OBJ("\"xs\":{\"type\":\"array\",\"items\":{\"type\":\"number\",\"minimum\":0},"
			    "\"minItems\":1,\"maxItems\":3}");
	expect_valid(s, "{\"xs\":[1]}", NULL);
	expect_valid(s, "{\"xs\":[1,2.5,3]}", NULL);
	expect_valid(s, "{\"xs\":[]}", "args.xs: must have at least 1 item");
	expect_valid(s, "{\"xs\":[1,2,3,4]}", "args.xs: must have at most 3 items");
	expect_valid(s, "{\"xs\":[1,\"2\"]}", "args.xs[1]: must be a number");
	expect_valid(s, "{\"xs\":[1,2,-1]}", "args.xs[2]: must be >= 0");
	expect_valid(OBJ("\"m\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":"
			 "{\"type\":\"object\",\"properties\":{\"k\":{\"enum\":[\"a\"]}}}}}"),
		     "{\"m\":[[],[{\"k\":\"a\"},{\"k\":\"b\"}]]}", "args.m[1][1].k: must be one of \"a\"");
}

static void validate_enum(void **state)
{
	(void)state;
	const char *s = OBJ("\"e\":{\"enum\":[\"red\",2,null,[1,{\"a\":true}]]}");
	expect_valid(s, "{\"e\":\"red\"}", NULL);
	expect_valid(s, "{\"e\":2.0}", NULL); /* 2 == 2.0 in JSON Schema */
	expect_valid(s, "{\"e\":null}", NULL);
	expect_valid(s, "{\"e\":[1.0,{\"a\":true}]}", NULL);
	expect_valid(s, "{\"e\":\"Red\"}", "args.e: must be one of \"red\", 2, null, [1,{\"a\":true}]");
	expect_valid(s, "{\"e\":[1,{\"a\":false}]}", "args.e: must be one of \"red\", 2, null, [1,{\"a\":true}]");
	expect_valid(s, "{\"e\":false}", "args.e: must be one of \"red\", 2, null, [1,{\"a\":true}]");
	/* a long enum list is cut */
	char big[2000];
	size_t n = (size_t)snprintf(big, sizeof(big), "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[");
	for (int i = 0; i < 60; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%s\"value%02d\"", i ? "," : "", i);
	snprintf(big + n, sizeof(big) - n, "]}}}");
	json_t *sc = parse(big), *v = parse("{\"e\":\"x\"}");
	assert_int_equal(tg_schema_check(sc), 0);
	assert_int_equal(tg_schema_validate(sc, v), TG_ERR_INVALID);
	const char *m = tg_error_last()->message;
	assert_int_equal(strncmp(m, "args.e: must be one of \"value00\", \"value01\"", 42), 0);
	assert_non_null(strstr(m, ", ..."));
	assert_true(strlen(m) < 300);
	json_decref(sc);
	json_decref(v);
}

static void validate_applicators(void **state)
{
	(void)state;
	const char *defs = "{\"type\":\"object\",\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1},"
			   "\"tree\":{\"type\":\"object\",\"properties\":{\"v\":{\"$ref\":\"#/$defs/pos\"},"
			   "\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/tree\"}}}}},"
			   "\"properties\":{\"t\":{\"$ref\":\"#/$defs/tree\"}}}";
	expect_valid(defs, "{\"t\":{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[]}]}}", NULL);
	expect_valid(defs, "{\"t\":{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[{\"v\":0}]}]}}",
		     "args.t.kids[0].kids[0].v: must be >= 1");
	const char *any = OBJ("\"u\":{\"anyOf\":[{\"type\":\"string\",\"maxLength\":2},{\"type\":\"integer\"}]}");
	expect_valid(any, "{\"u\":\"ab\"}", NULL);
	expect_valid(any, "{\"u\":7}", NULL);
	expect_valid(any, "{\"u\":\"abc\"}", "args.u: must match at least one schema of anyOf "
					     "(anyOf[0]: args.u: must be at most 2 characters long)");
	const char *one = OBJ("\"u\":{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":5}]}");
	expect_valid(one, "{\"u\":2}", NULL);
	expect_valid(one, "{\"u\":5.5}", NULL);
	expect_valid(one, "{\"u\":6}", "args.u: must match exactly one schema of oneOf (matches oneOf[0] and oneOf[1])");
	expect_valid(one, "{\"u\":2.5}", "args.u: must match exactly one schema of oneOf "
					 "(oneOf[0]: args.u: must be an integer)");
	expect_valid(OBJ("\"u\":{\"not\":{\"type\":\"null\"}}"), "{\"u\":null}",
		     "args.u: must not match the schema of not");
	const char *cond = OBJ("\"p\":{\"type\":\"object\",\"if\":{\"properties\":{\"kind\":{\"const\":\"n\"}}},"
			       "\"then\":{\"properties\":{\"v\":{\"type\":\"number\"}}},"
			       "\"else\":{\"properties\":{\"v\":{\"type\":\"string\"}}}}");
	expect_valid(cond, "{\"p\":{\"kind\":\"n\",\"v\":1}}", NULL);
	expect_valid(cond, "{\"p\":{\"kind\":\"s\",\"v\":\"x\"}}", NULL);
	expect_valid(cond, "{\"p\":{\"kind\":\"n\",\"v\":\"x\"}}", "args.p.v: must be a number");
	expect_valid(cond, "{\"p\":{\"kind\":\"s\",\"v\":1}}", "args.p.v: must be a string");
	expect_valid(OBJ("\"c\":{\"const\":{\"a\":[1,2]}}"), "{\"c\":{\"a\":[1.0,2]}}", NULL);
	expect_valid(OBJ("\"c\":{\"const\":{\"a\":[1,2]}}"), "{\"c\":{\"a\":[2,1]}}",
		     "args.c: must be {\"a\":[1,2]}");
	expect_valid(OBJ("\"b\":false"), "{\"b\":1}", "args.b: not allowed (the schema is false)");
	expect_valid(OBJ("\"b\":true"), "{\"b\":[null]}", NULL);
}

static void validate_object_keywords(void **state)
{
	(void)state;
	const char *s = "{\"type\":\"object\",\"properties\":{\"a\":{}},"
			"\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},"
			"\"additionalProperties\":{\"type\":\"integer\"},\"propertyNames\":{\"maxLength\":5},"
			"\"minProperties\":1,\"maxProperties\":3,\"dependentRequired\":{\"a\":[\"b\"]}}";
	expect_valid(s, "{\"x-1\":\"s\",\"n\":3}", NULL);
	expect_valid(s, "{}", "args: must have at least 1 property");
	expect_valid(s, "{\"n\":1,\"m\":2,\"o\":3,\"p\":4}", "args: must have at most 3 properties");
	expect_valid(s, "{\"x-1\":2}", "args.x-1: must be a string");
	expect_valid(s, "{\"n\":\"2\"}", "args.n: must be an integer");
	expect_valid(s, "{\"toolong\":1}", "args.toolong: property name not allowed by propertyNames");
	expect_valid(s, "{\"a\":1}", "args.b: required property is missing (dependentRequired: \"a\" is present)");
	expect_valid(s, "{\"a\":1,\"b\":2}", NULL);
	const char *u = "{\"type\":\"object\",\"properties\":{\"a\":{}},\"allOf\":[{\"properties\":{\"b\":{}}}],"
			"\"anyOf\":[{\"properties\":{\"c\":{\"type\":\"string\"}}},{\"properties\":{\"d\":{}}}],"
			"\"unevaluatedProperties\":false}";
	expect_valid(u, "{\"a\":1,\"b\":2,\"c\":\"x\",\"d\":4}", NULL);
	expect_valid(u, "{\"a\":1,\"e\":5}", "args.e: property not allowed (unevaluatedProperties is false)");
	/* c failed its anyOf branch: that branch evaluated nothing */
	expect_valid(u, "{\"c\":1,\"d\":1}", "args.c: property not allowed (unevaluatedProperties is false)");
	const char *dep = "{\"type\":\"object\",\"dependentSchemas\":{\"card\":{\"required\":[\"addr\"]}}}";
	expect_valid(dep, "{\"card\":1}", "args.addr: required property is missing");
	expect_valid(dep, "{\"addr\":1}", NULL);
}

static void validate_array_keywords(void **state)
{
	(void)state;
	const char *t = OBJ("\"t\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],"
			    "\"items\":false}");
	expect_valid(t, "{\"t\":[\"a\",1]}", NULL);
	expect_valid(t, "{\"t\":[\"a\"]}", NULL);
	expect_valid(t, "{\"t\":[1]}", "args.t[0]: must be a string");
	expect_valid(t, "{\"t\":[\"a\",1,2]}", "args.t[2]: item not allowed (items is false)");
	const char *c = OBJ("\"c\":{\"contains\":{\"type\":\"integer\"},\"minContains\":2,\"maxContains\":3}");
	expect_valid(c, "{\"c\":[1,\"x\",2]}", NULL);
	expect_valid(c, "{\"c\":[1,\"x\"]}", "args.c: must contain at least 2 items that match contains (it has 1)");
	expect_valid(c, "{\"c\":[1,2,3,4]}", "args.c: must contain at most 3 items that match contains (it has 4)");
	const char *u = OBJ("\"u\":{\"uniqueItems\":true}");
	expect_valid(u, "{\"u\":[1,\"1\",[1],{\"a\":1},{\"a\":2}]}", NULL);
	expect_valid(u, "{\"u\":[{\"a\":1,\"b\":[2]},3,{\"b\":[2.0],\"a\":1}]}",
		     "args.u[2]: duplicate of item [0] (uniqueItems)");
	expect_valid(u, "{\"u\":[0,false,null,\"\",[],{}]}", NULL);
	const char *ue = OBJ("\"e\":{\"prefixItems\":[{}],\"contains\":{\"const\":\"k\"},\"unevaluatedItems\":{\"type\":\"null\"}}");
	expect_valid(ue, "{\"e\":[1,\"k\",null,\"k\"]}", NULL);
	expect_valid(ue, "{\"e\":[1,\"k\",2]}", "args.e[2]: must be null");
}

static void validate_strings_and_numbers(void **state)
{
	(void)state;
	const char *p = OBJ("\"s\":{\"type\":\"string\",\"pattern\":\"^[a-z]+\\\\d$\"}");
	expect_valid(p, "{\"s\":\"abc1\"}", NULL);
	expect_valid(p, "{\"s\":\"abc1\\n\"}", "args.s: must match the pattern \"^[a-z]+\\d$\"");
	expect_valid(p, "{\"s\":\"ab\"}", "args.s: must match the pattern \"^[a-z]+\\d$\"");
	/* ECMA-262: \u escapes, \d is ASCII, property escapes by long name */
	expect_valid(OBJ("\"s\":{\"pattern\":\"^\\\\u00e9\\\\p{Letter}$\"}"), "{\"s\":\"\xc3\xa9\xc3\xa0\"}", NULL);
	expect_valid(OBJ("\"s\":{\"pattern\":\"^\\\\d$\"}"), "{\"s\":\"\xd9\xa3\"}", "args.s: must match the pattern \"^\\d$\"");
	const char *m = OBJ("\"n\":{\"multipleOf\":0.01}");
	expect_valid(m, "{\"n\":19.99}", NULL);
	expect_valid(m, "{\"n\":4}", NULL);
	expect_valid(m, "{\"n\":0.015}", "args.n: must be a multiple of 0.01");
	expect_valid(OBJ("\"n\":{\"multipleOf\":3}"), "{\"n\":-9}", NULL);
	expect_valid(OBJ("\"n\":{\"multipleOf\":3}"), "{\"n\":10}", "args.n: must be a multiple of 3");
}

static void expect_format(const char *format, const char *value, int ok)
{
	char schema[200], arg[300];
	json_t *s, *v;
	tg_schema *c;
	snprintf(schema, sizeof(schema), OBJ("\"f\":{\"format\":\"%s\"}"), format);
	snprintf(arg, sizeof(arg), "{\"f\":\"%s\"}", value);
	s = parse(schema);
	v = parse(arg);
	assert_int_equal(tg_schema_compile(&c, s, "input_schema", TG_SCHEMA_TOP_OBJECT | TG_SCHEMA_ASSERT_FORMAT), 0);
	if ((tg_schema_run(c, v, "args") == 0) != ok)
		fail_msg("format %s, value %s: want %s", format, value, ok ? "valid" : "invalid");
	if (!ok) {
		char want[120];
		snprintf(want, sizeof(want), "args.f: must be a valid %s (format)", format);
		assert_string_equal(tg_error_last()->message, want);
	}
	tg_schema_free(c);
	/* without the flag, format is an annotation */
	assert_int_equal(tg_schema_validate(s, v), 0);
	json_decref(s);
	json_decref(v);
}

static void validate_formats(void **state)
{
	(void)state;
	static const struct {
		const char *format, *value;
		int ok;
	} cases[] = {
		{"date", "2024-02-29", 1},        {"date", "2023-02-29", 0},     {"date", "2024-13-01", 0},
		{"date", "24-01-01", 0},          {"time", "23:59:60Z", 1},      {"time", "12:00:00", 0},
		{"time", "12:00:00.5+02:00", 1},  {"time", "12:00:60Z", 0},      {"date-time", "2024-01-02T03:04:05Z", 1},
		{"date-time", "2024-01-02 03:04:05Z", 0},                        {"email", "a.b+c@example.com", 1},
		{"email", "a..b@example.com", 0}, {"email", "ab@", 0},           {"email", "x@[127.0.0.1]", 1},
		{"ipv4", "192.168.0.1", 1},       {"ipv4", "192.168.0.01", 0},   {"ipv4", "1.2.3", 0},
		{"ipv6", "::1", 1},               {"ipv6", "fe80::1::2", 0},     {"ipv6", "1.2.3.4", 0},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", 1},             {"uuid", "123e4567e89b12d3a456426614174000", 0},
		{"uri", "https://example.com/a?b#c", 1},                         {"uri", "/relative/path", 0},
		{"uri", "http://x/%zz", 0},       {"uri", "urn:isbn:0451450523", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_format(cases[i].format, cases[i].value, cases[i].ok);
}

/* What the agent controls cannot make validation hang. */
static void validate_limits(void **state)
{
	(void)state;
	/* catastrophic backtracking: the match limit, not a hang, and `not` cannot hide it */
	for (int round = 0; round < 2; round++) {
		json_t *s = parse(round ? OBJ("\"s\":{\"not\":{\"pattern\":\"^(a|aa)+$\"}}")
					: OBJ("\"s\":{\"pattern\":\"^(a|aa)+$\"}"));
		tg_buf b = TG_BUF_INIT(0);
		tg_buf_puts(&b, "{\"s\":\"");
		for (int i = 0; i < 100; i++)
			tg_buf_puts(&b, "a");
		tg_buf_puts(&b, "!\"}");
		json_t *v = parse(b.ptr);
		uint64_t t0 = tg_now_ms();
		assert_int_equal(tg_schema_validate(s, v), TG_ERR_LIMIT);
		assert_true(tg_now_ms() - t0 < 3000);
		assert_non_null(strstr(tg_error_last()->message, "args.s: the pattern \"^(a|aa)+$\" exceeds the match limits"));
		json_decref(s);
		json_decref(v);
		tg_buf_free(&b);
	}
	/* anyOf of two refs to the next level, 30 levels: 2^30 paths, bounded */
	tg_buf b = TG_BUF_INIT(0);
	tg_buf_puts(&b, "{\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":\"#/$defs/d0\"}},\"$defs\":{");
	for (int i = 0; i < 30; i++)
		tg_buf_printf(&b, "\"d%d\":{\"anyOf\":[{\"$ref\":\"#/$defs/d%d\"},{\"$ref\":\"#/$defs/d%d\"}]},", i,
			      i + 1, i + 1);
	tg_buf_puts(&b, "\"d30\":{\"type\":\"string\"}}}");
	json_t *s = parse(b.ptr), *v = parse("{\"x\":1}");
	uint64_t t0 = tg_now_ms();
	assert_int_equal(tg_schema_check(s), 0);
	assert_int_equal(tg_schema_validate(s, v), TG_ERR_LIMIT);
	assert_true(tg_now_ms() - t0 < 4000);
	json_decref(s);
	json_decref(v);
	tg_buf_free(&b);
	/* a schema too large to check */
	tg_buf big = TG_BUF_INIT(0);
	tg_buf_puts(&big, "{\"type\":\"object\",\"description\":\"");
	for (int i = 0; i < 300 * 1024; i++)
		tg_buf_puts(&big, "x");
	tg_buf_puts(&big, "\"}");
	s = parse(big.ptr);
	assert_int_equal(tg_schema_check(s), TG_ERR_LIMIT);
	assert_string_equal(tg_error_last()->message, "input_schema: larger than 262144 bytes");
	json_decref(s);
	tg_buf_free(&big);
}

/* A compiled schema validates many values; the old entry points agree with it. */
static void compiled_handle(void **state)
{
	(void)state;
	json_t *s = parse(OBJ("\"n\":{\"type\":\"integer\"}")), *good = parse("{\"n\":1}"), *bad = parse("{\"n\":\"1\"}");
	tg_schema *c = NULL;
	assert_int_equal(tg_schema_compile(&c, s, "input_schema", TG_SCHEMA_TOP_OBJECT), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tg_schema_run(c, good, "args"), 0);
		assert_int_equal(tg_schema_run(c, bad, "result"), TG_ERR_INVALID);
		assert_string_equal(tg_error_last()->message, "result.n: must be an integer");
	}
	tg_schema_free(c);
	json_t *top = parse("{\"type\":\"array\"}");
	assert_int_equal(tg_schema_compile(&c, top, "input_schema", TG_SCHEMA_TOP_OBJECT), TG_ERR_INVALID);
	assert_null(c);
	assert_int_equal(tg_schema_check_output(top), 0);
	json_decref(top);
	json_decref(s);
	json_decref(good);
	json_decref(bad);
}

static void validate_misuse(void **state)
{
	(void)state;
	json_t *v = parse("{}");
	assert_int_equal(tg_schema_validate(NULL, v), TG_ERR_INTERNAL);
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_top_level),
		cmocka_unit_test(check_full_schema_accepted),
		cmocka_unit_test(check_refused_keywords),
		cmocka_unit_test(check_2020_12_accepted),
		cmocka_unit_test(check_malformed_keywords),
		cmocka_unit_test(check_applicability_and_bounds),
		cmocka_unit_test(check_depth_cap),
		cmocka_unit_test(check_list_caps),
		cmocka_unit_test(check_long_paths_are_bounded),
		cmocka_unit_test(validate_types),
		cmocka_unit_test(validate_required_and_additional),
		cmocka_unit_test(validate_numbers),
		cmocka_unit_test(validate_strings),
		cmocka_unit_test(validate_arrays),
		cmocka_unit_test(validate_enum),
		cmocka_unit_test(validate_applicators),
		cmocka_unit_test(validate_object_keywords),
		cmocka_unit_test(validate_array_keywords),
		cmocka_unit_test(validate_strings_and_numbers),
		cmocka_unit_test(validate_formats),
		cmocka_unit_test(validate_limits),
		cmocka_unit_test(compiled_handle),
		cmocka_unit_test(validate_misuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
