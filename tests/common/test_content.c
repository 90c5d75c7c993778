/*
 * tests/common/test_content.c: unit tests of common/content.c, the check of
 * a tool's "$content" blocks: each accepted shape, and each refusal with its
 * exact reason (count, type, members, MIME types per block type, base64
 * length, alphabet, padding and decoded size, text and URI rules), then the
 * blocks and the rest of the object a client is given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* The reason tg_content_check gives for the JSON text, "" when accepted. */
static const char *why_of(const char *text)
{
	static char why[512];
	json_t *v = json_loads(text, 0, NULL);
	int r;

	assert_non_null(v);
	why[0] = 0;
	r = tg_content_check(v, why, sizeof(why));
	assert_int_equal(r, why[0] ? -1 : 0);
	json_decref(v);
	return why;
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_blocks_and_rest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
