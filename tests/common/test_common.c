/*
 * tests/common/test_common.c: unit tests of common/: errors, buffers, JSON
 * reading of hostile input, files, SHA-256, names, UTF-8 and the home.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/common.h"

static void test_error_set_and_prefix(void **state)
{
	(void)state;
	assert_int_equal(tg_error_set(TG_ERR_INVALID, "bad %s", "thing"), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "bad thing");
	assert_int_equal(tg_error_prefix("manifest"), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "manifest: bad thing");
	assert_int_equal(tg_error_exit_status(TG_ERR_INVALID), 2);
	assert_int_equal(tg_error_exit_status(TG_ERR_IO), 3);
	assert_int_equal(tg_error_exit_status(TG_ERR_DENIED), 1);
	assert_int_equal(tg_error_exit_status(0), 0);
	tg_error_clear();
	assert_int_equal(tg_error_last()->code, 0);
	assert_string_equal(tg_error_last()->message, "");
}

static void test_error_prefix_long_message_is_cut(void **state)
{
	char big[2000];
	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tg_error_set(TG_ERR_IO, "%s", big);
	tg_error_prefix("pre");
	assert_int_equal(strlen(tg_error_last()->message), sizeof(tg_error_last()->message) - 1);
	assert_memory_equal(tg_error_last()->message, "pre: xxx", 8);
}

static void test_buf_limit(void **state)
{
	tg_buf b = TG_BUF_INIT(10);
	(void)state;
	assert_int_equal(tg_buf_puts(&b, "hello"), 0);
	assert_int_equal(tg_buf_printf(&b, "%d", 1234), 0);
	assert_string_equal(b.ptr, "hello1234");
	assert_int_equal(tg_buf_puts(&b, "ab"), TG_ERR_LIMIT);
	assert_string_equal(b.ptr, "hello1234");
	assert_int_equal(tg_buf_puts(&b, "a"), 0);
	assert_int_equal(b.len, 10);
	size_t len;
	char *s = tg_buf_detach(&b, &len);
	assert_int_equal(len, 10);
	assert_string_equal(s, "hello1234a");
	assert_null(b.ptr);
	free(s);
	s = tg_buf_detach(&b, &len);
	assert_string_equal(s, "");
	free(s);
}

static int parse_code(const char *text, size_t max_bytes, size_t max_depth)
{
	tg_json_limits lim = { max_bytes, max_depth };
	json_t *v = NULL;
	int r = tg_json_parse(&v, text, strlen(text), &lim);
	if (r == 0)
		assert_non_null(v);
	else
		assert_null(v);
	json_decref(v);
	return r;
}

static void test_json_rejects_hostile(void **state)
{
	(void)state;
	assert_int_equal(parse_code("{\"a\":1}", 0, 0), 0);
	assert_int_equal(parse_code("{\"a\":1,\"a\":2}", 0, 0), TG_ERR_INVALID);
	assert_non_null(strstr(tg_error_last()->message, "duplicate"));
	assert_int_equal(parse_code("{\"a\":1} x", 0, 0), TG_ERR_INVALID);
	assert_int_equal(parse_code("{\"a\":\"x\\u0000y\"}", 0, 0), TG_ERR_INVALID);
	assert_int_equal(parse_code("{\"a\":\"\xff\"}", 0, 0), TG_ERR_INVALID);
	assert_int_equal(parse_code("[1,]", 0, 0), TG_ERR_INVALID);
	assert_int_equal(parse_code("123456789012345678901234567890", 0, 0), TG_ERR_INVALID);
	assert_int_equal(parse_code("[[[[1]]]]", 0, 3), TG_ERR_LIMIT);
	assert_int_equal(parse_code("[[[1]]]", 0, 3), 0);
	assert_int_equal(parse_code("\"[[[[[[\"", 0, 3), 0); /* brackets in strings don't count */
	assert_int_equal(parse_code("[1,2,3,4,5]", 5, 0), TG_ERR_LIMIT);
	assert_int_equal(parse_code("", 0, 0), TG_ERR_INVALID);
}

static void test_json_error_text_is_safe(void **state)
{
	json_t *v = NULL;
	const char *in = "{\"a\":\"\\\xc3\xa9\"}";
	(void)state;
	assert_int_equal(tg_json_parse(&v, in, strlen(in), NULL), TG_ERR_INVALID);
	assert_int_equal(tg_utf8_valid(tg_error_last()->message, strlen(tg_error_last()->message)), 0);
	in = "{\"a\x1b[2J\":1,\"a\x1b[2J\":2}";
	assert_int_equal(tg_json_parse(&v, in, strlen(in), NULL), TG_ERR_INVALID);
	assert_null(strchr(tg_error_last()->message, '\x1b'));
}

static void test_utf8_repair(void **state)
{
	char s[] = "ok \xc3\xa9 bad \xc3 end \xff\xf0\x9f\x98\x80";
	(void)state;
	tg_str_utf8_repair(s);
	assert_string_equal(s, "ok \xc3\xa9 bad ? end ?\xf0\x9f\x98\x80");
}

/* The shared terminal scrubber: every control, C1, bidi control and bad
 * byte becomes a visible marker; valid text (accents, emoji) is kept. */
static void test_term_scrub(void **state)
{
	const char in[] = "a\x1b[31m\tb\nc\r\x7f \xc2\x9b[2J \x9b \xe2\x80\xae\xe2\x81\xa6"
			  "\xe2\x80\x8f\xd8\x9c \xc3\xa9\xf0\x9f\x98\x80 \xc2\xa0 \xed\xa0\x80";
	char *t;
	json_t *v;
	(void)state;
	t = tg_term_scrub(in, sizeof(in) - 1, TG_TERM_BLOCK);
	assert_string_equal(t, "a^[[31m\tb\nc^M^? <U+009B>[2J \\x9B <U+202E><U+2066><U+200F><U+061C> "
			       "\xc3\xa9\xf0\x9f\x98\x80 \xc2\xa0 \\xED\\xA0\\x80");
	free(t);
	t = tg_term_scrub(in, 12, TG_TERM_LINE);
	assert_string_equal(t, "a^[[31m^Ib^Jc^M^?");
	free(t);
	t = tg_term_scrub(NULL, 0, TG_TERM_LINE);
	assert_string_equal(t, "");
	free(t);
	/* JSON output: the same value with DEL, C1 and bidi as \uXXXX */
	v = json_string("x\x1b\x7f\xc2\x85\xe2\x80\xae\xc3\xa9");
	{
		char *d = tg_json_dump(v);
		t = tg_term_json_escape(d);
		assert_string_equal(t, "\"x\\u001B\\u007F\\u0085\\u202E\xc3\xa9\"");
		free(d);
		free(t);
	}
	json_decref(v);
	assert_true(tg_term_unsafe(0x9b) && tg_term_unsafe(0x2069) && !tg_term_unsafe(0xa0));
}

static void test_json_rejects_raw_nul(void **state)
{
	json_t *v = NULL;
	(void)state;
	assert_int_equal(tg_json_parse(&v, "124\0", 4, NULL), TG_ERR_INVALID);
	assert_int_equal(tg_json_parse(&v, "[1\0,2]", 6, NULL), TG_ERR_INVALID);
	assert_null(v);
}

static void test_json_deep_default(void **state)
{
	size_t n = 100000, i;
	char *s = malloc(2 * n + 1);
	json_t *v = NULL;
	(void)state;
	for (i = 0; i < n; i++) {
		s[i] = '[';
		s[n + i] = ']';
	}
	s[2 * n] = '\0';
	assert_int_equal(tg_json_parse(&v, s, 2 * n, NULL), TG_ERR_LIMIT);
	free(s);
}

static void test_json_getters(void **state)
{
	json_t *v = NULL;
	const char *s = "unset";
	int64_t i = -1;
	int b = -1;
	json_t *o = NULL;
	static const char *const allowed[] = { "name", "n", "ok", "obj", NULL };
	(void)state;
	assert_int_equal(tg_json_parse(&v, "{\"name\":\"x\",\"n\":3,\"ok\":true,\"obj\":{}}", 37, NULL), 0);
	assert_int_equal(tg_json_get_string(&s, v, "name", 1), 0);
	assert_string_equal(s, "x");
	assert_int_equal(tg_json_get_int(&i, v, "n", 1), 0);
	assert_int_equal(i, 3);
	assert_int_equal(tg_json_get_bool(&b, v, "ok", 1), 0);
	assert_int_equal(b, 1);
	assert_int_equal(tg_json_get_object(&o, v, "obj", 1), 0);
	assert_non_null(o);
	assert_int_equal(tg_json_get_string(&s, v, "n", 1), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "n: must be a string");
	assert_int_equal(tg_json_get_string(&s, v, "missing", 1), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "missing: is required");
	s = "kept";
	assert_int_equal(tg_json_get_string(&s, v, "missing", 0), 0);
	assert_string_equal(s, "kept");
	assert_int_equal(tg_json_check_keys(v, allowed, "manifest"), 0);
	json_object_set_new(v, "evil", json_true());
	assert_int_equal(tg_json_check_keys(v, allowed, "manifest"), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "manifest: unknown key \"evil\"");
	json_object_set_new(v, "\x1b[2J\r\nx", json_true());
	json_object_del(v, "evil");
	assert_int_equal(tg_json_check_keys(v, allowed, "manifest"), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message,
			    "manifest: unknown key \"\\x1b[2J\\x0d\\x0ax\"");
	json_decref(v);
}

static void test_files(void **state)
{
	char dir[] = "/tmp/tg_common_XXXXXX";
	char *path, *deep, *data = NULL;
	size_t len;
	(void)state;
	assert_non_null(mkdtemp(dir));
	path = tg_path_join(dir, "f.txt");
	assert_int_equal(tg_file_write_atomic(path, "hello", 5, 0600), 0);
	assert_int_equal(tg_file_read(&data, &len, path, 100), 0);
	assert_int_equal(len, 5);
	assert_string_equal(data, "hello");
	free(data);
	assert_int_equal(tg_file_read(&data, &len, path, 4), TG_ERR_LIMIT);
	assert_int_equal(tg_file_read(&data, &len, "/nonexistent/x", 4), TG_ERR_NOTFOUND);
	assert_int_equal(tg_file_read(&data, &len, dir, 4), TG_ERR_INVALID);
	deep = tg_path_join(dir, "a/b/c");
	assert_int_equal(tg_mkdir_p(deep, 0700), 0);
	struct stat st;
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(path);
	free(deep);
	path = tg_path_join("/a/", "/b");
	assert_string_equal(path, "/a/b");
	free(path);
}

static void test_sha256(void **state)
{
	char hex[65];
	(void)state;
	tg_sha256_hex(hex, "", 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	tg_sha256_hex(hex, "abc", 3);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	tg_sha256_hex(hex, m, strlen(m));
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* The FIPS 180-4 vectors and a million 'a', through one path. */
static void sha256_vectors(void)
{
	static const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
				  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	char hex[65], *a = malloc(1000000);
	tg_sha256 s;
	int i;

	assert_non_null(a);
	tg_sha256_hex(hex, "", 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	tg_sha256_hex(hex, "abc", 3);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	tg_sha256_hex(hex, m896, strlen(m896));
	assert_string_equal(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	memset(a, 'a', 1000000);
	tg_sha256_hex(hex, a, 1000000);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* the same million in uneven pieces (partial blocks, whole blocks) */
	tg_sha256_init(&s);
	for (i = 0; i < 1000000;) {
		int k = 1 + (i * 7) % 201;
		if (k > 1000000 - i)
			k = 1000000 - i;
		tg_sha256_update(&s, a + i, (size_t)k);
		i += k;
	}
	tg_sha256_final_hex(&s, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

/* OpenSSL behind tg_sha256 (common/sha256.c): the vectors, and the same
 * digest for every length 0..300 whether hashed at once or in two updates
 * split anywhere. */
static void test_sha256_paths(void **state)
{
	unsigned char msg[300];
	char one[65], hex[65];
	size_t n, k;
	tg_sha256 s;
	(void)state;

	for (n = 0; n < sizeof(msg); n++)
		msg[n] = (unsigned char)(n * 131 + 7);
	sha256_vectors();
	for (n = 0; n <= sizeof(msg); n++) {
		tg_sha256_hex(one, msg, n);
		for (k = 0; k <= n; k += 1 + n / 40) {
			tg_sha256_init(&s);
			tg_sha256_update(&s, msg, k);
			tg_sha256_update(&s, msg + k, n - k);
			tg_sha256_final_hex(&s, hex);
			assert_string_equal(hex, one);
		}
	}
	/* the 300 bytes of the pattern, as Python's hashlib digests them */
	tg_sha256_hex(hex, msg, sizeof(msg));
	assert_string_equal(hex, "cf2eb35169ce035ca6dfb9c3a303d1495473b02fd17c5635008f1e659b733d8f");
}

static void test_names_and_utf8(void **state)
{
	char long_name[70];
	(void)state;
	assert_true(tg_name_valid("word_count"));
	assert_true(tg_name_valid("a"));
	assert_false(tg_name_valid(""));
	assert_false(tg_name_valid("../x"));
	assert_false(tg_name_valid("a;drop table"));
	assert_false(tg_name_valid("Word"));
	assert_false(tg_name_valid("1abc"));
	memset(long_name, 'a', 64);
	long_name[64] = '\0';
	assert_true(tg_name_valid(long_name));
	long_name[64] = 'a';
	long_name[65] = '\0';
	assert_false(tg_name_valid(long_name));
	assert_int_equal(tg_utf8_valid("h\xc3\xa9llo", 6), 0);
	assert_int_equal(tg_utf8_valid("\xc3", 1), -1);
	assert_int_equal(tg_utf8_valid("\xc0\x80", 2), -1);     /* overlong */
	assert_int_equal(tg_utf8_valid("\xed\xa0\x80", 3), -1); /* surrogate */
	assert_int_equal(tg_utf8_valid("a\0b", 3), -1);
	assert_int_equal(tg_utf8_valid("\xf0\x9f\x98\x80", 4), 0);
}

static void test_home(void **state)
{
	char *h = NULL;
	(void)state;
	assert_int_equal(tg_home_resolve(&h, "/x/flag"), 0);
	assert_string_equal(h, "/x/flag");
	free(h);
	setenv("TOOLGATE_HOME", "/x/env", 1);
	assert_int_equal(tg_home_resolve(&h, NULL), 0);
	assert_string_equal(h, "/x/env");
	free(h);
	unsetenv("TOOLGATE_HOME");
	setenv("XDG_DATA_HOME", "/x/xdg", 1);
	assert_int_equal(tg_home_resolve(&h, NULL), 0);
	assert_string_equal(h, "/x/xdg/toolgate");
	free(h);
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/x/home", 1);
	assert_int_equal(tg_home_resolve(&h, NULL), 0);
	assert_string_equal(h, "/x/home/.local/share/toolgate");
	free(h);
}

static void test_dl_load(void **state)
{
	static const char *const names[] = { "cos", "sqrt" };
	static const char *const bad[] = { "cos", "no_such_function_tg" };
	void *fcos = NULL, *fsqrt = NULL;
	void **const slots[] = { &fcos, &fsqrt };
	(void)state;
	assert_int_equal(tg_dl_load("/nonexistent/libm.so", "libm.so.6", names, slots, 2), 0);
	assert_non_null(fcos);
	assert_non_null(fsqrt);
	assert_true(((double (*)(double))fsqrt)(16.0) == 4.0);
	assert_int_equal(tg_dl_load("/nonexistent/libx.so", NULL, names, slots, 2), TG_ERR_UNAVAILABLE);
	assert_non_null(strstr(tg_error_last()->message, "cannot load /nonexistent/libx.so"));
	assert_int_equal(tg_dl_load("libm.so.6", NULL, bad, slots, 2), TG_ERR_UNAVAILABLE);
	assert_string_equal(tg_error_last()->message, "libm.so.6 lacks no_such_function_tg");
}

/* The shortest spelling that reads back as the same double (issue 14:
 * "numbers as the agent wrote them"); a real stays a real, an integer an
 * integer; every output reads back as exactly the input. */
static void expect_real(double d, const char *want)
{
	char buf[40];
	assert_int_equal(tg_json_format_real(buf, sizeof(buf), d), 0);
	assert_string_equal(buf, want);
	assert_true(strtod(buf, NULL) == d);
	assert_int_equal(signbit(strtod(buf, NULL)) != 0, signbit(d) != 0);
}

static void test_json_real_shortest(void **state)
{
	char buf[40];
	json_t *v;
	char *d;

	(void)state;
	expect_real(0.1, "0.1");
	expect_real(0.77, "0.77");
	expect_real(1e300, "1e300");
	expect_real(1e-5, "1e-5");
	expect_real(1.5e-7, "1.5e-7");
	expect_real(1e16, "1e16");
	expect_real(5e-324, "5e-324");
	expect_real(-0.0, "-0.0");
	expect_real(2.0, "2.0");
	expect_real(100000.0, "100000.0");
	expect_real(1.0 / 3.0, "0.3333333333333333");
	expect_real(0.1 + 0.2, "0.30000000000000004");
	expect_real(1.7976931348623157e308, "1.7976931348623157e308");
	expect_real(123456789012345.0, "123456789012345.0");
	assert_int_equal(tg_json_format_real(buf, sizeof(buf), 1.0 / 0.0), TG_ERR_INVALID);

	/* through tg_json_dump: integers stay integers, strings untouched */
	v = json_pack("{s:f, s:I, s:f, s:s, s:[f, f]}", "a", 0.77, "n", (json_int_t)9007199254740993LL,
		      "z", -0.0, "s", "0.77000000000000002 1.0", "l", 1e300, 3.0);
	assert_non_null(v);
	d = tg_json_dump(v);
	assert_string_equal(d, "{\"a\":0.77,\"n\":9007199254740993,\"z\":-0.0,"
			       "\"s\":\"0.77000000000000002 1.0\",\"l\":[1e300,3.0]}");
	free(d);
	json_decref(v);
	/* a stored text with jansson's long spelling, respelled in place */
	d = tg_json_shorten_reals("{\n  \"x\": 0.77000000000000002,\n  \"k\": \"a\\\"1.50\",\n"
				  "  \"i\": -12,\n  \"e\": 1.0000000000000001e+300\n}");
	assert_string_equal(d, "{\n  \"x\": 0.77,\n  \"k\": \"a\\\"1.50\",\n  \"i\": -12,\n"
			       "  \"e\": 1e300\n}");
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_set_and_prefix),
		cmocka_unit_test(test_error_prefix_long_message_is_cut),
		cmocka_unit_test(test_buf_limit),
		cmocka_unit_test(test_json_rejects_hostile),
		cmocka_unit_test(test_json_rejects_raw_nul),
		cmocka_unit_test(test_json_error_text_is_safe),
		cmocka_unit_test(test_utf8_repair),
		cmocka_unit_test(test_term_scrub),
		cmocka_unit_test(test_json_deep_default),
		cmocka_unit_test(test_json_getters),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_sha256_paths),
		cmocka_unit_test(test_names_and_utf8),
		cmocka_unit_test(test_home),
		cmocka_unit_test(test_dl_load),
		cmocka_unit_test(test_json_real_shortest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
