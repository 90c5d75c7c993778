/*
 * tests/sdk/test_diff.c: differential test of the SDK's JSON parser
 * (tg_value_parse of sdk/toolgate/tool.h) against common's tg_json_parse
 * (jansson, strict). Seed documents covering every feature are mutated with
 * a fixed-seed PRNG (byte changes biased to JSON syntax and UTF-8 edge bytes,
 * insertions, deletions, duplicated ranges, truncations). On every input both
 * parsers must agree: both accept and build the same value (same types, same
 * integer/real form, same strings byte for byte, same member order), or both
 * refuse — except where the contracts differ by design: jansson refuses
 * integers beyond 64 bits (the SDK keeps them as doubles) and \u0000 (the SDK
 * keeps the NUL; tg_arg_str refuses it), and jansson accepts a raw NUL byte
 * right after a number ("124\0", "[1\0,2]"), which the SDK, like RFC 8259,
 * refuses. Run under ASan+UBSan in `make
 * sanitize`, it is also a memory-safety test of the parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include <toolgate/tool.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const seeds[] = {
	"{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\"}}",
	"{\"text\":\"h\\u00e9llo \\ud83d\\ude00 w\\\"o\\\\r\\/ld\\n\\t\",\"n\":-12.5e-3}",
	"[0,-0,1.0,1e2,1E+2,-1e-2,123456789012345678,9223372036854775807,-9223372036854775808]",
	"{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf\",\"k\":\"\"}",
	"[[[[[[[[[[]]]]]]]]]]",
	"{\"x\":{\"y\":{\"z\":[1,[2,[3,{\"w\":\"v\"}]]]}}}",
	"  { \"sp\" : [ 1 , 2 ] ,\r\n \"q\" : \"\\b\\f\\r\" }  ",
	"\"just a string\"",
	"12345",
	"{\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k10\":10}",
	"[\"\\u0041\\u00DF\\u6771\\uD800\\uDC00\",\"\\uDBFF\\uDFFF\"]",
	"{\"\":0,\"a b\":[{},[],\"\"]}",
	"[1.7976931348623157e308,5e-324,0.1,3.141592653589793]",
};

static const unsigned char interesting[] = {
	'"', '\\', '{', '}', '[', ']', ',', ':', '0', '1', '9', '-', '+', '.', 'e', 'E', 'u', 'd',
	'8', 'D', 'C', 'F', 'a', 't', 'n', 'f', 'l', ' ', '\n', '\t', '\r', 0, 0x1f, 0x7f, 0x80,
	0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
};

static size_t mutate(unsigned char *buf, size_t len, size_t cap)
{
	int rounds = 1 + (int)(next() % 4);
	while (rounds--) {
		size_t pos = len ? (size_t)(next() % len) : 0, n;
		unsigned char c = next() % 4 ? interesting[next() % sizeof(interesting)] : (unsigned char)next();
		switch (next() % 6) {
		case 0: case 1: /* replace */
			if (len)
				buf[pos] = c;
			break;
		case 2: /* insert */
			if (len + 1 < cap) {
				memmove(buf + pos + 1, buf + pos, len - pos);
				buf[pos] = c;
				len++;
			}
			break;
		case 3: /* delete */
			if (len) {
				memmove(buf + pos, buf + pos + 1, len - pos - 1);
				len--;
			}
			break;
		case 4: /* duplicate a range */
			n = len - pos < 16 ? len - pos : 1 + (size_t)(next() % 16);
			if (len + n < cap) {
				memmove(buf + pos + n, buf + pos, len - pos);
				len += n;
			}
			break;
		default: /* truncate */
			len = pos;
			break;
		}
	}
	return len;
}

/* Same value? The SDK tree against the jansson tree. */
static int same(const tg_value *v, const json_t *j)
{
	size_t k;
	switch (tg_value_type(v)) {
	case TG_NULL: return json_is_null(j);
	case TG_BOOL: return v->i ? json_is_true(j) : json_is_false(j);
	case TG_NUMBER:
		if (json_is_integer(j))
			return v->int_form && v->is_int && v->i == json_integer_value(j);
		return json_is_real(j) && !v->int_form && v->num == json_real_value(j);
	case TG_STRING:
		return json_is_string(j) && json_string_length(j) == v->len &&
		       !memcmp(json_string_value(j), v->u.str, v->len);
	case TG_ARRAY:
		if (!json_is_array(j) || json_array_size(j) != v->len)
			return 0;
		for (k = 0; k < v->len; k++)
			if (!same(tg_value_at(v, k), json_array_get(j, k)))
				return 0;
		return 1;
	case TG_OBJECT: {
		void *it = json_object_iter((json_t *)j);
		if (!json_is_object(j) || json_object_size(j) != v->len)
			return 0;
		for (k = 0; k < v->len; k++, it = json_object_iter_next((json_t *)j, it))
			if (!it || strcmp(json_object_iter_key(it), tg_value_key(v, k)) ||
			    !same(tg_value_at(v, k), json_object_iter_value(it)))
				return 0;
		return 1;
	}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long iterations = argc > 1 ? atol(argv[1]) : 100000, i;
	unsigned char buf[512];
	long accepted = 0, refused = 0, excused = 0, failures = 0;

	for (i = 0; i < iterations && failures < 10; i++) {
		const char *seed = seeds[next() % (sizeof(seeds) / sizeof(seeds[0]))];
		size_t len = strlen(seed);
		char err[160];
		tg_value *v;
		json_t *j = NULL;
		int jok;

		memcpy(buf, seed, len);
		if (i % 8)
			len = mutate(buf, len, sizeof(buf));
		v = tg_value_parse((const char *)buf, len, err, sizeof(err));
		jok = tg_json_parse(&j, (const char *)buf, len, NULL) == 0;
		if (v && jok) {
			accepted++;
			if (!same(v, j)) {
				fprintf(stderr, "FAIL: both accept but differ: %.*s\n", (int)len, buf);
				failures++;
			}
		} else if (!v && !jok) {
			refused++;
		} else if (v) {
			const char *why = tg_error_last()->message;
			if (strstr(why, "too big") || strstr(why, "\\u0000")) {
				excused++;
			} else {
				fprintf(stderr, "FAIL: the SDK accepts, jansson refuses (%s): %.*s\n", why, (int)len, buf);
				failures++;
			}
		} else if (memchr(buf, 0, len)) {
			excused++; /* jansson swallows a raw NUL after a number ("[1\0,2]") */
		} else {
			fprintf(stderr, "FAIL: jansson accepts, the SDK refuses (%s): %.*s\n", err, (int)len, buf);
			failures++;
		}
		tg_value_free(v);
		json_decref(j);
	}
	printf("%ld inputs: %ld accepted by both, %ld refused by both, %ld excused, %ld failures\n",
	       i, accepted, refused, excused, failures);
	return failures || accepted < iterations / 20 ? 1 : 0;
}
