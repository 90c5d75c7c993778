/*
 * tests/common/test_content.c: unit tests of common/content.c, the check of
 * a tool's "$content" blocks: each accepted shape, and each refusal with its
 * exact reason (count, type, members, MIME types per block type, base64
 * length, alphabet, padding and decoded size, text and URI rules), then the
 * blocks and the rest of the object a client is given. With them, those of
 * common/input_req.c (below): what a tool asks
 * its MCP client for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* The reason check gives for the JSON text, "" when accepted. */
static const char *why_by(int (*check)(const json_t *, char *, size_t), const char *text)
{
	static char why[512];
	json_t *v = json_loads(text, 0, NULL);
	int r;

	assert_non_null(v);
	why[0] = 0;
	r = check(v, why, sizeof(why));
	assert_int_equal(r, why[0] ? -1 : 0);
	json_decref(v);
	return why;
}
#define why_of(text) why_by(tg_content_check, text)

static void test_accepted(void **state)
{
	(void)state;
	assert_string_equal(why_of("{\"n\":1}"), "");
	assert_string_equal(why_of("[1,2]"), "");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"text\",\"text\":\"a\\n\\tb \\u00e9\"}]}"), "");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"image\",\"data\":\"aGk=\",\"mimeType\":\"image/webp\"},"
				   "{\"type\":\"audio\",\"data\":\"aGVsbG8h\",\"mimeType\":\"audio/flac\"},"
				   "{\"type\":\"resource\",\"resource\":{\"uri\":\"https://x.example/a?b=1\","
				   "\"mimeType\":\"audio/mpeg\",\"blob\":\"aA==\"}}],\"k\":true}"), "");
}

static void test_refusals(void **state)
{
	(void)state;
	assert_string_equal(why_of("{\"$content\":[]}"), "$content must be a non-empty array of content blocks");
	assert_string_equal(why_of("{\"$content\":{}}"), "$content must be a non-empty array of content blocks");
	assert_string_equal(why_of("{\"$content\":[1]}"), "$content[0] must be an object");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"video\"}]}"),
			    "$content[0]: type must be one of text, image, audio, resource");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"text\",\"text\":\"a\",\"annotations\":{}}]}"),
			    "$content[0] has the unknown member \"annotations\"");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"text\",\"text\":1}]}"),
			    "$content[0]: text must be a string");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"text\",\"text\":\"a\\rb\"}]}"),
			    "$content[0]: text has the control character U+000D at byte 1 (only newline and tab are allowed)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"text\",\"text\":\"x\\u202ey\"}]}"),
			    "$content[1]: text has the control character U+202E at byte 1 (only newline and tab are allowed)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"text\",\"text\":\"\\u0085\"}]}"),
			    "$content[0]: text has the control character U+0085 at byte 0 (only newline and tab are allowed)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"audio\",\"data\":\"aGk=\",\"mimeType\":\"image/png\"}]}"),
			    "$content[0]: mimeType \"image/png\" is not allowed (allowed: audio/wav, audio/mpeg, audio/ogg, audio/webm, audio/flac)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"image\",\"data\":\"aGk=\"}]}"),
			    "$content[0]: mimeType must be a string (one of image/png, image/jpeg, image/gif, image/webp)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"image\",\"data\":\"aGk\",\"mimeType\":\"image/png\"}]}"),
			    "$content[0]: data is not well-formed base64: its length 3 is not a positive multiple of 4");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"image\",\"data\":\"\",\"mimeType\":\"image/png\"}]}"),
			    "$content[0]: data is not well-formed base64: its length 0 is not a positive multiple of 4");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"image\",\"data\":\"aG k\",\"mimeType\":\"image/png\"}]}"),
			    "$content[0]: data is not well-formed base64: byte 2 is not in its alphabet");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"image\",\"data\":\"a=k=\",\"mimeType\":\"image/png\"}]}"),
			    "$content[0]: data is not well-formed base64: byte 1 is not in its alphabet");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"image\",\"data\":\"aGl=\",\"mimeType\":\"image/png\"}]}"),
			    "$content[0]: data is not well-formed base64: the padding bits are not zero");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"a://b\",\"mimeType\":\"text/plain\"}}]}"),
			    "$content[0]: resource needs exactly one of text and blob");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"a://b\",\"mimeType\":\"text/html\",\"text\":\"x\"}}]}"),
			    "$content[0]: resource.mimeType \"text/html\" is not allowed (allowed: text/plain, text/markdown, text/csv, application/json)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"a://b\",\"mimeType\":\"text/plain\",\"blob\":\"aA==\"}}]}"),
			    "$content[0]: resource.mimeType \"text/plain\" is not allowed (allowed: image/png, image/jpeg, image/gif, image/webp)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"a b://c\",\"mimeType\":\"text/plain\",\"text\":\"x\"}}]}"),
			    "$content[0]: resource.uri has a byte that is not printable ASCII at 1");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"Notes://c\",\"mimeType\":\"text/plain\",\"text\":\"x\"}}]}"),
			    "$content[0]: resource.uri must be scheme://... with a lower-case scheme");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///etc/passwd\",\"mimeType\":\"text/plain\",\"text\":\"x\"}}]}"),
			    "$content[0]: resource.uri has the scheme file, which is refused (file://, the same for javascript, vbscript, data, blob, file and about)");
	assert_string_equal(why_of("{\"$content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"a://b\",\"name\":\"n\",\"mimeType\":\"text/plain\",\"text\":\"x\"}}]}"),
			    "$content[0]: resource has the unknown member \"name\"");
}

static void test_limits(void **state)
{
	json_t *blocks = json_array(), *v;
	char why[256], *uri, *data;
	size_t i;

	(void)state;
	for (i = 0; i < TG_CONTENT_MAX_BLOCKS; i++)
		json_array_append_new(blocks, json_pack("{s:s,s:s}", "type", "text", "text", "x"));
	v = json_pack("{s:O}", TG_CONTENT_KEY, blocks);
	assert_int_equal(tg_content_check(v, why, sizeof(why)), 0);
	json_array_append_new(blocks, json_pack("{s:s,s:s}", "type", "text", "text", "x"));
	assert_int_equal(tg_content_check(v, why, sizeof(why)), -1);
	assert_string_equal(why, "$content has 17 blocks (at most 16)");
	json_decref(v);
	json_decref(blocks);

	uri = malloc(TG_CONTENT_MAX_URI + 2);
	memcpy(uri, "a://", 4);
	memset(uri + 4, 'x', TG_CONTENT_MAX_URI - 3);
	uri[TG_CONTENT_MAX_URI + 1] = 0;
	v = json_pack("{s:[{s:s,s:{s:s,s:s,s:s}}]}", TG_CONTENT_KEY, "type", "resource", "resource",
		      "uri", uri, "mimeType", "text/plain", "text", "x");
	assert_int_equal(tg_content_check(v, why, sizeof(why)), -1);
	assert_string_equal(why, "$content[0]: resource.uri has 2049 bytes (1 to 2048)");
	json_decref(v);
	free(uri);

	/* 4 * 174763 characters: with one '=' exactly the limit, without 1 more */
	data = malloc(4 * 174763 + 1);
	memset(data, 'A', 4 * 174763);
	data[4 * 174763] = 0;
	v = json_pack("{s:[{s:s,s:s,s:s}]}", TG_CONTENT_KEY, "type", "image", "data", data,
		      "mimeType", "image/gif");
	assert_int_equal(tg_content_check(v, why, sizeof(why)), -1);
	assert_string_equal(why, "$content[0]: data decodes to 524289 bytes (at most 524288)");
	json_decref(v);
	data[4 * 174763 - 1] = '=';
	v = json_pack("{s:[{s:s,s:s,s:s}]}", TG_CONTENT_KEY, "type", "image", "data", data,
		      "mimeType", "image/gif");
	assert_int_equal(tg_content_check(v, why, sizeof(why)), 0);
	json_decref(v);
	free(data);
}

static void test_blocks_and_rest(void **state)
{
	json_t *v = json_loads("{\"$content\":[{\"type\":\"text\",\"text\":\"a\"}],\"n\":2}", 0, NULL);
	json_t *only = json_loads("{\"$content\":[{\"type\":\"text\",\"text\":\"a\"}]}", 0, NULL);
	json_t *b = tg_content_blocks(v), *rest = tg_content_rest(v);
	char *s;

	(void)state;
	assert_true(tg_content_has(v));
	assert_false(tg_content_has(rest));
	s = json_dumps(b, JSON_COMPACT);
	assert_string_equal(s, "[{\"type\":\"text\",\"text\":\"a\"}]");
	free(s);
	s = json_dumps(rest, JSON_COMPACT);
	assert_string_equal(s, "{\"n\":2}");
	free(s);
	assert_null(tg_content_rest(only));
	json_decref(b);
	json_decref(rest);
	json_decref(v);
	json_decref(only);
}

/* ---- common/input_req.c ---- */

#define ir_why(text) why_by(tg_input_required_check, text)
#define IR "{\"$input_required\":"
#define ROOTS "{\"method\":\"roots/list\",\"params\":{}}"

static void test_input_accepted(void **state)
{
	(void)state;
	assert_string_equal(ir_why("{\"n\":1}"), "");
	assert_string_equal(ir_why(IR "{\"a\":" ROOTS "}}"), "");
	assert_string_equal(ir_why(IR "{\"a.b-c_9\":{\"method\":\"elicitation/create\",\"params\":"
				   "{\"message\":\"Name?\\n\\tok \\u00e9\"}},\"s\":{\"method\":"
				   "\"sampling/createMessage\",\"params\":{\"maxTokens\":5}}}}"), "");
}

static void test_input_refusals(void **state)
{
	(void)state;
	assert_string_equal(ir_why(IR "{\"a\":" ROOTS "},\"x\":1}"),
			    "$input_required must be the only member of the result");
	assert_string_equal(ir_why(IR "{}}"),
			    "$input_required must be an object of at least one request");
	assert_string_equal(ir_why(IR "[]}"),
			    "$input_required must be an object of at least one request");
	assert_string_equal(ir_why(IR "{\"a b\":" ROOTS "}}"),
			    "$input_required: a key must be 1 to 64 of [A-Za-z0-9_.-]");
	assert_string_equal(ir_why(IR "{\"call_approval\":" ROOTS "}}"),
			    "$input_required: the key call_approval is toolgate's (per-call approvals)");
	assert_string_equal(ir_why(IR "{\"a\":{\"method\":\"roots/list\"}}}"),
			    "$input_required.a must be {\"method\", \"params\"} and nothing else");
	assert_string_equal(ir_why(IR "{\"a\":{\"method\":\"roots/list\",\"params\":{},\"x\":1}}}"),
			    "$input_required.a must be {\"method\", \"params\"} and nothing else");
	assert_string_equal(ir_why(IR "{\"a\":{\"method\":\"ping\",\"params\":{}}}}"),
			    "$input_required.a: method ping is not one a tool may ask "
			    "(elicitation/create, sampling/createMessage, roots/list)");
	assert_string_equal(ir_why(IR "{\"a\":{\"method\":\"roots/list\",\"params\":[]}}}"),
			    "$input_required.a.params must be an object");
	assert_string_equal(ir_why(IR "{\"a\":{\"method\":\"roots/list\",\"params\":{\"m\":[\"\\u001b\"]}}}}"),
			    "$input_required.a.params has the control character U+001B at byte 0 "
			    "(only newline and tab are allowed)");
	assert_string_equal(ir_why(IR "{\"a\":{\"method\":\"roots/list\",\"params\":{\"\\u202e\":1}}}}"),
			    "$input_required.a.params has the control character U+202E at byte 0 "
			    "(only newline and tab are allowed)");
	assert_string_equal(ir_why(IR "{\"a\":{\"method\":\"roots/list\",\"params\":{\"m\":"
				   "[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}}}}"),
			    "$input_required.a.params is nested deeper than 16");
}

static void test_input_limits(void **state)
{
	char *text = malloc(40000), *p;
	int i;

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, IR "{");
	for (i = 0; i < 9; i++)
		p += sprintf(p, "%s\"k%d\":" ROOTS, i ? "," : "", i);
	sprintf(p, "}}");
	assert_string_equal(ir_why(text), "$input_required has 9 requests (at most 8)");
	p = text + sprintf(text, IR "{\"a\":{\"method\":\"roots/list\",\"params\":{\"m\":\"");
	memset(p, 'x', 16400);
	sprintf(p + 16400, "\"}}}}");
	assert_string_equal(ir_why(text), "$input_required.a has 16441 bytes (at most 16384)");
	free(text);
}

static void test_input_capability_and_args(void **state)
{
	json_t *args = json_pack("{s:i, s:{}, s:i}", "n", 1, TG_INPUT_RESPONSES_KEY,
				 TG_INPUT_VERSION_KEY, 3);
	json_t *bare, *tool;
	char why[256];

	(void)state;
	assert_string_equal(tg_input_capability("elicitation/create"), "elicitation");
	assert_string_equal(tg_input_capability("sampling/createMessage"), "sampling");
	assert_string_equal(tg_input_capability("roots/list"), "roots");
	assert_null(tg_input_capability("tools/call"));
	bare = tg_input_args_bare(args);
	tool = tg_input_args_for_tool(args);
	assert_int_equal(json_object_size(bare), 1);
	assert_int_equal(json_object_size(tool), 2);
	assert_null(json_object_get(tool, TG_INPUT_VERSION_KEY));
	assert_int_equal(json_object_size(args), 3);
	assert_int_equal(tg_input_pin_check(args, 3, why, sizeof(why)), 0);
	assert_int_equal(tg_input_pin_check(args, 4, why, sizeof(why)), -1);
	assert_string_equal(why, "requestState: issued by v3 of the tool, but v4 is active now: "
				 "call again without the state");
	assert_int_equal(tg_input_pin_check(bare, 4, why, sizeof(why)), 0);
	json_decref(bare);
	json_decref(tool);
	json_decref(args);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_blocks_and_rest),
		cmocka_unit_test(test_input_accepted),
		cmocka_unit_test(test_input_refusals),
		cmocka_unit_test(test_input_limits),
		cmocka_unit_test(test_input_capability_and_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
