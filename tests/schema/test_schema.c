/*
 * tests/schema/test_schema.c: cmocka tests of registry/schema.c: every
 * keyword of the subset accepted and enforced, every other keyword and every
 * malformed keyword refused, with the exact path message.
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

static void check_unsupported_keywords(void **state)
{
	(void)state;
	const char *tail = ": unsupported keyword (supported: type, properties, required, "
			   "additionalProperties, enum, minimum, maximum, exclusiveMinimum, "
			   "exclusiveMaximum, minLength, maxLength, items, minItems, maxItems, "
			   "description, title, default, $schema)";
	static const char *const cases[][2] = {
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"pattern\":\"^a\"}}}",
		 "input_schema.properties.s.pattern"},
		{"{\"type\":\"object\",\"oneOf\":[]}", "input_schema.oneOf"},
		{"{\"type\":\"object\",\"$ref\":\"#/x\"}", "input_schema.$ref"},
		{"{\"type\":\"object\",\"properties\":{\"s\":{\"format\":\"email\"}}}",
		 "input_schema.properties.s.format"},
		{"{\"type\":\"object\",\"properties\":{\"xs\":{\"type\":\"array\",\"items\":{\"const\":1}}}}",
		 "input_schema.properties.xs.items.const"},
		{"{\"type\":\"object\",\"patternProperties\":{}}", "input_schema.patternProperties"},
		{"{\"type\":\"object\",\"properties\":{\"a b\":{\"multipleOf\":2}}}",
		 "input_schema.properties[\"a b\"].multipleOf"},
		{"{\"type\":\"object\",\"properties\":{\"q\\\"\\n\":{\"allOf\":[]}}}",
		 "input_schema.properties[\"q\\\"\\u000a\"].allOf"},
		{"{\"type\":\"object\",\"definitions\":{}}", "input_schema.definitions"},
		{"{\"type\":\"object\",\"uniqueItems\":true}", "input_schema.uniqueItems"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[1024];
		snprintf(want, sizeof(want), "%s%s", cases[i][1], tail);
		expect_schema(cases[i][0], want);
	}
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
		 "input_schema.properties.a: must be a schema object"},
		{"{\"type\":\"object\",\"properties\":{\"a\":true}}",
		 "input_schema.properties.a: must be a schema object"},
		{"{\"type\":\"object\",\"required\":\"a\"}",
		 "input_schema.required: must be an array of property names"},
		{"{\"type\":\"object\",\"required\":[\"a\",3]}", "input_schema.required[1]: must be a string"},
		{"{\"type\":\"object\",\"required\":[\"a\",\"a\"]}", "input_schema.required: duplicate name \"a\""},
		{"{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}",
		 "input_schema.additionalProperties: must be true or false (a schema here is not supported)"},
		{"{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[]}}}",
		 "input_schema.properties.e.enum: must be a non-empty array"},
		{"{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":\"a\"}}}",
		 "input_schema.properties.e.enum: must be a non-empty array"},
		{"{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[1,\"a\",1.0]}}}",
		 "input_schema.properties.e.enum[2]: duplicate value"},
		{"{\"type\":\"object\",\"properties\":{\"e\":{\"type\":\"string\",\"enum\":[\"a\",2]}}}",
		 "input_schema.properties.e.enum[1]: is not of the schema's type (string)"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"items\":[{}]}}}",
		 "input_schema.properties.a.items: must be one schema object (the tuple form is not supported)"},
		{"{\"type\":\"object\",\"properties\":{\"a\":{\"items\":7}}}",
		 "input_schema.properties.a.items: must be a schema object"},
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
	assert_non_null(strstr(m, "...\"].bad: unsupported keyword"));
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
		cmocka_unit_test(check_unsupported_keywords),
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
		cmocka_unit_test(validate_misuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
