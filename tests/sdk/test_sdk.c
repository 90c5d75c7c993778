/*
 * tests/sdk/test_sdk.c: drives small tools built against sdk/toolgate/tool.h
 * (tests/sdk/tools/) with hostile stdin and asserts their exact stdout,
 * stderr and exit status: malformed JSON, deep nesting, oversize input,
 * invalid escapes and surrogates, NUL bytes, invalid UTF-8, duplicate keys,
 * number edge cases, every typed getter and every misuse of the writer.
 * argv[1] is the folder holding the built tools.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static const char *tool_dir;

/* A string literal with its exact length (embedded NULs included). */
#define IN(s) (s), (sizeof(s) - 1)

static void expect_run(const char *tool, const char *in, size_t len, int status, const char *out,
		       const char *err)
{
	char prog[4096];
	sdk_run r;
	snprintf(prog, sizeof(prog), "%s/sdk_tool_%s", tool_dir, tool);
	if (sdk_run_prog(&r, prog, in, len) < 0)
		fail_msg("cannot run %s", prog);
	if (r.status != status || strcmp(r.out, out) || strcmp(r.err, err)) {
		fprintf(stderr, "tool %s, input (%zu bytes): %.200s\n", tool, len, in);
		fprintf(stderr, " got status %d\n stdout [%.300s]\n stderr [%.300s]\n", r.status, r.out, r.err);
		fprintf(stderr, "want status %d\n stdout [%.300s]\n stderr [%.300s]\n", status, out, err);
		sdk_run_free(&r);
		fail();
	}
	sdk_run_free(&r);
}

#define BAD(in, msg) \
	expect_run("echo", IN(in), 1, "", "toolgate tool: invalid JSON arguments: " msg "\n")
#define ECHO(in, out) expect_run("echo", IN(in), 0, out "\n", "")

static void parse_valid(void **state)
{
	(void)state;
	ECHO("{\"a\":1}", "{\"a\":1}");
	ECHO(" \t\n{ \"a\" : [ 1 , 2 ] ,\"b\":{ } }\r\n ", "{\"a\":[1,2],\"b\":{}}");
	ECHO("{\"t\":true,\"f\":false,\"n\":null,\"e\":\"\",\"ea\":[],\"eo\":{}}",
	     "{\"t\":true,\"f\":false,\"n\":null,\"e\":\"\",\"ea\":[],\"eo\":{}}");
	ECHO("{}", "{}");
}

static void parse_malformed(void **state)
{
	(void)state;
	BAD("", "line 1, column 1: unexpected end of input");
	BAD("   ", "line 1, column 4: unexpected end of input");
	expect_run("echo", IN("[]"), 1, "", "toolgate tool: the arguments must be a JSON object\n");
	expect_run("echo", IN("\"x\""), 1, "", "toolgate tool: the arguments must be a JSON object\n");
	expect_run("echo", IN("null"), 1, "", "toolgate tool: the arguments must be a JSON object\n");
	BAD("{\"a\":}", "line 1, column 6: unexpected character");
	BAD("{\"a\":1,}", "line 1, column 8: expected a string key");
	BAD("{'a':1}", "line 1, column 2: expected a string key");
	BAD("{\"a\" 1}", "line 1, column 6: expected ':' after an object key");
	BAD("{\"a\":01}", "line 1, column 6: invalid number (leading zero)");
	BAD("{\"a\":1.}", "line 1, column 6: invalid number (digits expected after '.')");
	BAD("{\"a\":.5}", "line 1, column 6: unexpected character");
	BAD("{\"a\":+1}", "line 1, column 6: unexpected character");
	BAD("{\"a\":-}", "line 1, column 6: invalid number");
	BAD("{\"a\":1e}", "line 1, column 6: invalid number (digits expected in exponent)");
	BAD("{\"a\":1e+}", "line 1, column 6: invalid number (digits expected in exponent)");
	BAD("{\"a\":0x10}", "line 1, column 7: expected ',' or '}' in object");
	BAD("{\"a\":tru}", "line 1, column 6: unexpected character");
	BAD("{\"a\":True}", "line 1, column 6: unexpected character");
	BAD("{\"a\":NaN}", "line 1, column 6: unexpected character");
	BAD("{\"a\":Infinity}", "line 1, column 6: unexpected character");
	BAD("{\"a\":-Infinity}", "line 1, column 6: invalid number");
	BAD("{} x", "line 1, column 4: unexpected data after the JSON value");
	BAD("{}{}", "line 1, column 3: unexpected data after the JSON value");
	BAD("\xef\xbb\xbf{}", "line 1, column 1: unexpected character");
	BAD("{\"a\":1 \"b\":2}", "line 1, column 8: expected ',' or '}' in object");
	BAD("{\"a\":[1 2]}", "line 1, column 9: expected ',' or ']' in array");
	BAD("{\"a\":[1,]}", "line 1, column 9: unexpected character");
	BAD("{\"a\":\"abc", "line 1, column 10: unterminated string");
	BAD("{\"a", "line 1, column 4: unterminated string");
	BAD("{\"a\":1", "line 1, column 7: expected ',' or '}' in object");
	BAD("{\n\"a\":\n x}", "line 3, column 2: unexpected character");
	BAD("{\"a\":/*c*/1}", "line 1, column 6: unexpected character");
}

static void parse_escapes_and_surrogates(void **state)
{
	(void)state;
	BAD("{\"s\":\"\\x\"}", "line 1, column 7: invalid escape in string");
	BAD("{\"s\":\"\\'\"}", "line 1, column 7: invalid escape in string");
	BAD("{\"s\":\"\\u12\"}", "line 1, column 7: invalid \\u escape (needs 4 hex digits)");
	BAD("{\"s\":\"\\u12G4\"}", "line 1, column 7: invalid \\u escape (needs 4 hex digits)");
	BAD("{\"s\":\"\\U0041\"}", "line 1, column 7: invalid escape in string");
	BAD("{\"s\":\"\\", "line 1, column 7: unterminated string");
	ECHO("{\"s\":\"\\ud83d\\ude00\"}", "{\"s\":\"\xf0\x9f\x98\x80\"}");
	ECHO("{\"s\":\"\\uD83D\\uDE00\\u00E9\\u20ac\"}", "{\"s\":\"\xf0\x9f\x98\x80\xc3\xa9\xe2\x82\xac\"}");
	ECHO("{\"s\":\"\\udbff\\udfff\"}", "{\"s\":\"\xf4\x8f\xbf\xbf\"}");
	BAD("{\"s\":\"\\ud83d\"}", "line 1, column 7: unpaired high surrogate in \\u escape");
	BAD("{\"s\":\"\\ud83d\\u0041\"}", "line 1, column 7: unpaired high surrogate in \\u escape");
	BAD("{\"s\":\"\\ud83dx\"}", "line 1, column 7: unpaired high surrogate in \\u escape");
	BAD("{\"s\":\"\\ud83d\\ud83d\"}", "line 1, column 7: unpaired high surrogate in \\u escape");
	BAD("{\"s\":\"\\ude00\"}", "line 1, column 7: unpaired low surrogate in \\u escape");
	ECHO("{\"s\":\"\\u00e9\\/\\\"\\\\\\b\\f\\n\\r\\t\"}",
	     "{\"s\":\"\xc3\xa9/\\\"\\\\\\u0008\\u000c\\n\\r\\t\"}");
	ECHO("{\"s\":\"\\u0000\",\"k\\u0000\":1,\"k\":2}", "{\"s\":\"\\u0000\",\"k\\u0000\":1,\"k\":2}");
}

static void parse_nul_control_and_utf8(void **state)
{
	(void)state;
	BAD("{\"s\":\"a\tb\"}", "line 1, column 8: control character in string (escape it)");
	BAD("{\"s\":\"a\nb\"}", "line 1, column 8: control character in string (escape it)");
	BAD("{\"s\":\"a\0b\"}", "line 1, column 8: control character in string (escape it)");
	BAD("{\"a\":1}\0", "line 1, column 8: unexpected data after the JSON value");
	BAD("\0{}", "line 1, column 1: unexpected character");
	BAD("{\"a\":\0}", "line 1, column 6: unexpected character");
	BAD("{\"s\":\"\xc0\x80\"}", "line 1, column 7: invalid UTF-8 in string");      /* overlong */
	BAD("{\"s\":\"\xe0\x80\xaf\"}", "line 1, column 7: invalid UTF-8 in string");  /* overlong */
	BAD("{\"s\":\"\xed\xa0\x80\"}", "line 1, column 7: invalid UTF-8 in string");  /* surrogate */
	BAD("{\"s\":\"\xf4\x90\x80\x80\"}", "line 1, column 7: invalid UTF-8 in string"); /* > U+10FFFF */
	BAD("{\"s\":\"\xf5\x80\x80\x80\"}", "line 1, column 7: invalid UTF-8 in string");
	BAD("{\"s\":\"\xe2\x82\"}", "line 1, column 7: invalid UTF-8 in string");      /* truncated */
	BAD("{\"s\":\"\x80\"}", "line 1, column 7: invalid UTF-8 in string");          /* lone continuation */
	BAD("{\"s\":\"\xe2\x82", "line 1, column 7: invalid UTF-8 in string");         /* at the end */
	BAD("{\"\xff\":1}", "line 1, column 3: invalid UTF-8 in string");
	ECHO("{\"s\":\"\xf0\x9f\x98\x80 \xc3\xa9 \xef\xbf\xbf\"}", "{\"s\":\"\xf0\x9f\x98\x80 \xc3\xa9 \xef\xbf\xbf\"}");
}

static void parse_duplicates(void **state)
{
	(void)state;
	char big[1024];
	size_t n = 0;
	BAD("{\"a\":1,\"a\":2}", "line 1, column 1: duplicate key in object");
	BAD("{\"x\":{\"b\":1,\"c\":2,\"b\":3}}", "line 1, column 6: duplicate key in object");
	BAD("{\"\\u0061\":1,\"a\":2}", "line 1, column 1: duplicate key in object");
	/* more than 8 members: the sorted check */
	n += (size_t)snprintf(big + n, sizeof(big) - n, "{");
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%s\"k%02d\":%d", i ? "," : "", i, i);
	snprintf(big + n, sizeof(big) - n, "}");
	expect_run("echo", big, strlen(big), 0, strcat(strcpy((char[1024]){0}, big), "\n"), "");
	snprintf(big + n, sizeof(big) - n, ",\"k07\":0}");
	expect_run("echo", big, strlen(big), 1, "",
		   "toolgate tool: invalid JSON arguments: line 1, column 1: duplicate key in object\n");
}

static void parse_depth(void **state)
{
	(void)state;
	size_t cap = 200100, n;
	char *buf = malloc(cap), *want = malloc(cap);
	assert_non_null(buf);
	assert_non_null(want);
	/* 64 levels (the object and 63 arrays): accepted */
	n = (size_t)sprintf(buf, "{\"a\":");
	memset(buf + n, '[', 63);
	memset(buf + n + 63, ']', 63);
	strcpy(buf + n + 126, "}");
	strcpy(want, buf);
	strcat(want, "\n");
	expect_run("echo", buf, strlen(buf), 0, want, "");
	/* 65: refused at the 65th opener */
	memset(buf + n, '[', 64);
	memset(buf + n + 64, ']', 64);
	strcpy(buf + n + 128, "}");
	expect_run("echo", buf, strlen(buf), 1, "",
		   "toolgate tool: invalid JSON arguments: line 1, column 69: nesting deeper than 64 levels\n");
	/* 200000 openers: the same, no stack exhaustion */
	memset(buf + n, '[', 200000);
	buf[n + 200000] = '\0';
	expect_run("echo", buf, strlen(buf), 1, "",
		   "toolgate tool: invalid JSON arguments: line 1, column 69: nesting deeper than 64 levels\n");
	memset(buf, '{', 100);
	expect_run("echo", buf, 100, 1, "",
		   "toolgate tool: invalid JSON arguments: line 1, column 2: expected a string key\n");
	free(buf);
	free(want);
}

static void parse_size_cap(void **state)
{
	(void)state;
	const size_t max = 1048576;
	char *buf = malloc(8 * max + 2), *want = malloc(max + 2);
	assert_non_null(buf);
	assert_non_null(want);
	/* exactly 1 MiB: accepted and echoed */
	memcpy(buf, "{\"s\":\"", 6);
	memset(buf + 6, 'x', max - 8);
	memcpy(buf + max - 2, "\"}", 2);
	memcpy(want, buf, max);
	memcpy(want + max, "\n", 2);
	expect_run("echo", buf, max, 0, want, "");
	/* one byte more (trailing space): refused */
	buf[max] = ' ';
	expect_run("echo", buf, max + 1, 1, "", "toolgate tool: arguments larger than 1048576 bytes\n");
	/* 8 MiB of string */
	memset(buf + 6, 'y', 8 * max - 6);
	expect_run("echo", buf, 8 * max, 1, "", "toolgate tool: arguments larger than 1048576 bytes\n");
	free(buf);
	free(want);
}

static void parse_numbers(void **state)
{
	(void)state;
	ECHO("{\"n\":[0,-0,9223372036854775807,-9223372036854775808,1.5,-2.5e-3,1E2,1e-400,-1e-400,2.0]}",
	     "{\"n\":[0,0,9223372036854775807,-9223372036854775808,1.5,-0.0025,100.0,0.0,-0.0,2.0]}");
	ECHO("{\"n\":[9223372036854775808,-9223372036854775809,99999999999999999999]}",
	     "{\"n\":[9.223372036854776e+18,-9.223372036854776e+18,1e+20]}");
	BAD("{\"n\":1e400}", "line 1, column 6: number out of range");
	BAD("{\"n\":-1e400}", "line 1, column 6: number out of range");
	/* a 100000-digit number: out of range; a 100000-digit fraction: fine */
	{
		size_t len = 100010;
		char *buf = malloc(len + 16);
		assert_non_null(buf);
		strcpy(buf, "{\"n\":1");
		memset(buf + 6, '0', 100000);
		strcpy(buf + 100006, "}");
		expect_run("echo", buf, strlen(buf), 1, "",
			   "toolgate tool: invalid JSON arguments: line 1, column 6: number out of range\n");
		strcpy(buf, "{\"n\":0.");
		memset(buf + 7, '0', 100000);
		strcpy(buf + 100007, "1}");
		expect_run("echo", buf, strlen(buf), 0, "{\"n\":0.0}\n", "");
		free(buf);
	}
}

#define GET(in, out) expect_run("getters", IN(in), 0, out "\n", "")
#define GETFAIL(in, msg) expect_run("getters", IN(in), 1, "", msg "\n")

static void getters_defaults_and_values(void **state)
{
	(void)state;
	GET("{}", "{\"text\":\"dflt\",\"n\":-1,\"x\":0.5,\"b\":false,\"sum\":0.0,\"count\":0,\"ptx\":-1.5,"
		  "\"pty\":2.5,\"raw\":null,\"rawlen\":0,\"keys\":[]}");
	GET("{\"text\":\"h\xc3\xa9\",\"n\":7,\"x\":2,\"b\":true,\"xs\":[1,2.5,-1],\"pt\":{\"x\":3,\"inner\":{\"y\":4}},"
	    "\"raw\":\"a\\u0000b\"}",
	    "{\"text\":\"h\xc3\xa9\",\"n\":7,\"x\":2.0,\"b\":true,\"sum\":2.5,\"count\":3,\"ptx\":3.0,\"pty\":4.0,"
	    "\"raw\":\"a\\u0000b\",\"rawlen\":3,\"keys\":[\"text\",\"n\",\"x\",\"b\",\"xs\",\"pt\",\"raw\"]}");
	/* null counts as absent */
	GET("{\"text\":null,\"n\":null,\"xs\":null,\"pt\":null}",
	    "{\"text\":\"dflt\",\"n\":-1,\"x\":0.5,\"b\":false,\"sum\":0.0,\"count\":0,\"ptx\":-1.5,"
	    "\"pty\":2.5,\"raw\":null,\"rawlen\":0,\"keys\":[\"text\",\"n\",\"xs\",\"pt\"]}");
	/* integral reals are integers; extremes */
	GET("{\"n\":7.0}", "{\"text\":\"dflt\",\"n\":7,\"x\":0.5,\"b\":false,\"sum\":0.0,\"count\":0,\"ptx\":-1.5,"
			   "\"pty\":2.5,\"raw\":null,\"rawlen\":0,\"keys\":[\"n\"]}");
	GET("{\"n\":-9223372036854775808}",
	    "{\"text\":\"dflt\",\"n\":-9223372036854775808,\"x\":0.5,\"b\":false,\"sum\":0.0,\"count\":0,"
	    "\"ptx\":-1.5,\"pty\":2.5,\"raw\":null,\"rawlen\":0,\"keys\":[\"n\"]}");
}

static void getters_failures(void **state)
{
	(void)state;
	GETFAIL("{\"text\":5}", "text: must be a string, not a number");
	GETFAIL("{\"text\":[]}", "text: must be a string, not an array");
	GETFAIL("{\"text\":\"a\\u0000b\"}", "text: contains a NUL character (use tg_value_strn)");
	GETFAIL("{\"n\":7.5}", "n: must be an integer (within 64 bits)");
	GETFAIL("{\"n\":1e19}", "n: must be an integer (within 64 bits)");
	GETFAIL("{\"n\":9223372036854775808}", "n: must be an integer (within 64 bits)");
	GETFAIL("{\"n\":-9223372036854775809}", "n: must be an integer (within 64 bits)");
	GETFAIL("{\"n\":\"7\"}", "n: must be an integer, not a string");
	GETFAIL("{\"x\":true}", "x: must be a number, not a boolean");
	GETFAIL("{\"b\":\"true\"}", "b: must be a boolean, not a string");
	GETFAIL("{\"b\":1}", "b: must be a boolean, not a number");
	GETFAIL("{\"xs\":{}}", "xs: must be an array, not an object");
	GETFAIL("{\"xs\":[1,\"2\"]}", "xs[1]: must be a number, not a string");
	GETFAIL("{\"pt\":[]}", "pt: must be an object, not an array");
	GETFAIL("{\"pt\":{\"x\":\"3\"}}", "pt.x: must be a number, not a string");
	GETFAIL("{\"pt\":{\"inner\":{\"y\":[1]}}}", "pt.inner.y: must be a number, not an array");
	GETFAIL("{\"pt\":{\"inner\":5}}", "pt.inner: must be an object, not a number");
	GETFAIL("{\"raw\":false}", "raw: must be a string, not a boolean");
	GETFAIL("{\"need\":\"zzz\"}", "zzz: missing required argument");
	GETFAIL("{\"need\":\"n\",\"n\":1}", "n: must be a string, not a number");
	GETFAIL("{\"first_int\":[]}", "first_int: no item 0 (length 0)");
	GETFAIL("{\"first_int\":[1.5]}", "first_int[0]: must be an integer (within 64 bits)");
	GETFAIL("{\"first_int\":5}", "first_int: must be an array, not a number");
}

#define WRITE(c, out) expect_run("writer", IN("{\"case\":\"" c "\"}"), 0, out "\n", "")
#define WFAIL(c, out, msg) expect_run("writer", IN("{\"case\":\"" c "\"}"), 1, out, msg "\n")

static void writer_output(void **state)
{
	(void)state;
	WRITE("escapes", "\"q\\\" b\\\\ / \\n\\r\\t\\u0008\\u000c \\u0001\\u001f\\u007f \xc3\xa9 \xf0\x9f\x98\x80 \\u0000end\"");
	WRITE("numbers", "[0.1,2.0,-0.0,1e+300,0.3333333333333333,123456789.0,4.94065645841247e-324,"
			 "-9223372036854775808,42]");
	WRITE("nested", "{\"a\":[{},[],null],\"s\":null,\"o\":{\"t\":true}}");
	{
		char want[200];
		memset(want, '[', 64);
		memset(want + 64, ']', 64);
		strcpy(want + 128, "\n");
		expect_run("writer", IN("{\"case\":\"deep_ok\"}"), 0, want, "");
	}
	/* content blocks: base64 of 6, 1 and 5 bytes (no, two and one '=') */
	WRITE("content", "{\"$content\":[{\"type\":\"text\",\"text\":\"t\\n\"},"
			 "{\"type\":\"image\",\"data\":\"+/8AYWJj\",\"mimeType\":\"image/png\"},"
			 "{\"type\":\"audio\",\"data\":\"+w==\",\"mimeType\":\"audio/ogg\"},"
			 "{\"type\":\"resource\",\"resource\":{\"uri\":\"n://x\",\"mimeType\":\"text/plain\",\"text\":\"r\"}},"
			 "{\"type\":\"resource\",\"resource\":{\"uri\":\"n://y\",\"mimeType\":\"image/gif\",\"blob\":\"+/8AYWI=\"}}],"
			 "\"n\":1}");
}

static void writer_misuse(void **state)
{
	(void)state;
	WFAIL("nan", "", "tg_out_num: not a finite number (JSON has no NaN or infinity)");
	WFAIL("inf", "{\"x\":", "tg_out_num: not a finite number (JSON has no NaN or infinity)");
	WFAIL("two_values", "1", "tg_out_int: the result is already complete (one JSON value only)");
	WFAIL("value_without_key", "{", "tg_out_int: a value inside an object needs tg_out_key first");
	WFAIL("key_in_array", "[", "tg_out_key: a key is only allowed directly inside an object, before its value");
	WFAIL("key_twice", "{\"k\":", "tg_out_key: a key is only allowed directly inside an object, before its value");
	WFAIL("dangling_key", "{\"k\":", "tg_out_end: the last key has no value");
	WFAIL("wrong_end", "{", "tg_out_array_end: no open array to end");
	WFAIL("end_at_top", "", "tg_out_object_end: no open object to end");
	WFAIL("bad_utf8", "\"ok ", "tg_out_str: invalid UTF-8 in string");
	WFAIL("bad_utf8_key", "{\"", "tg_out_key: invalid UTF-8 in string");
	WFAIL("nothing", "", "tg_out_end: no result was written");
	WFAIL("content_unopened", "", "tg_out_content_image: call tg_out_content_begin first");
	WFAIL("content_nested", "[", "tg_out_content_begin: content blocks are the result itself (call it first, once)");
	WFAIL("content_in_block", "{\"$content\":[{", "tg_out_content_text: call tg_out_content_begin first");
	WFAIL("content_end_twice", "{\"$content\":[]", "tg_out_content_end: no open content block list");
	WFAIL("fail", "", "custom failure 7/x");
	WFAIL("bogus", "", "unknown case");
	{
		char want[100];
		memset(want, '[', 64);
		want[64] = '\0';
		WFAIL("too_deep", want, "tg_out_array_begin: result nested deeper than 64 levels");
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_valid),
		cmocka_unit_test(parse_malformed),
		cmocka_unit_test(parse_escapes_and_surrogates),
		cmocka_unit_test(parse_nul_control_and_utf8),
		cmocka_unit_test(parse_duplicates),
		cmocka_unit_test(parse_depth),
		cmocka_unit_test(parse_size_cap),
		cmocka_unit_test(parse_numbers),
		cmocka_unit_test(getters_defaults_and_values),
		cmocka_unit_test(getters_failures),
		cmocka_unit_test(writer_output),
		cmocka_unit_test(writer_misuse),
	};
	if (argc != 2) {
		fprintf(stderr, "usage: %s TOOL_DIR\n", argv[0]);
		return 2;
	}
	tool_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
