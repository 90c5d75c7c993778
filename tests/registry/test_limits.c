/*
 * tests/registry/test_limits.c: a tool's run limits (registry/config/limits.c)
 * on their own: reg_limits_parse with every refusal and its message, the
 * defaults a run gets and how config.json's ceilings cut them,
 * reg_limits_read on stored limits (lenient: a value it cannot take falls
 * back to the default) and the object reg_limits_json gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "registry/config/config.h"
#include "test_support.h"

static json_t *parse(const char *text)
{
	json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
	assert_non_null(v);
	return v;
}

/* The config of a home whose config.json is text (NULL: none). */
static void load_config(tg_config *cfg, const char *text)
{
	char *home = tgt_home_make("limits");

	if (text) {
		_cleanup_free_ char *p = tg_path_join(home, "config.json");
		assert_int_equal(tg_mkdir_p(home, 0700), 0);
		assert_int_equal(tg_file_write_atomic(p, text, strlen(text), 0600), 0);
	}
	assert_int_equal(reg_config_load(cfg, home), 0);
	tgt_home_remove(home);
}

static void expect_limits(const reg_limits *l, uint32_t t, uint32_t m, uint32_t o, uint32_t c)
{
	assert_int_equal(l->timeout_ms, t);
	assert_int_equal(l->memory_mb, m);
	assert_int_equal(l->output_kb, o);
	assert_int_equal(l->max_tool_calls, c);
}

static void test_parse_defaults(void **state)
{
	_cleanup_json_ json_t *empty = parse("{}"), *some = parse("{\"memory_mb\":128}"),
			      *all = parse("{\"timeout_ms\":10000,\"memory_mb\":16,"
					   "\"output_kb\":1,\"max_tool_calls\":0}");
	tg_config cfg;
	reg_limits l;

	(void)state;
	load_config(&cfg, NULL);
	memset(&l, 0xff, sizeof(l));
	assert_int_equal(reg_limits_parse(&l, &cfg, NULL, "limits"), 0);
	expect_limits(&l, 2000, 64, 1024, 16);
	assert_int_equal(REG_LIMITS_DEF_TOOL_CALLS, 16);
	assert_int_equal(reg_limits_parse(&l, &cfg, empty, "limits"), 0);
	expect_limits(&l, 2000, 64, 1024, 16);
	assert_int_equal(reg_limits_parse(&l, &cfg, some, "limits"), 0);
	expect_limits(&l, 2000, 128, 1024, 16);
	/* each floor, and the ceiling of timeout_ms, is allowed */
	assert_int_equal(reg_limits_parse(&l, &cfg, all, "limits"), 0);
	expect_limits(&l, 10000, 16, 1, 0);
	/* validate only */
	assert_int_equal(reg_limits_parse(NULL, &cfg, all, "limits"), 0);
	reg_config_clear(&cfg);
}

static void test_parse_refusals(void **state)
{
	static const struct {
		const char *limits;
		int code;
		const char *msg; /* the whole message, or its start when it ends in "..." */
	} cases[] = {
		{ "[]", TG_ERR_INVALID, "limits: must be an object" },
		{ "{\"cpu\":1}", TG_ERR_INVALID, "limits: unknown key \"cpu\"" },
		{ "{\"timeout_ms\":\"2s\"}", TG_ERR_INVALID, "limits.timeout_ms: must be an integer" },
		{ "{\"output_kb\":1.5}", TG_ERR_INVALID, "limits.output_kb: must be an integer" },
		{ "{\"max_tool_calls\":null}", TG_ERR_INVALID,
		  "limits.max_tool_calls: must be an integer" },
		{ "{\"timeout_ms\":9}", TG_ERR_INVALID, "limits.timeout_ms: must be at least 10" },
		{ "{\"memory_mb\":1}", TG_ERR_INVALID, "limits.memory_mb: must be at least 16" },
		{ "{\"output_kb\":0}", TG_ERR_INVALID, "limits.output_kb: must be at least 1" },
		{ "{\"max_tool_calls\":-1}", TG_ERR_INVALID,
		  "limits.max_tool_calls: must be at least 0" },
		{ "{\"timeout_ms\":10001}", TG_ERR_LIMIT,
		  "limits.timeout_ms: 10001 exceeds this home's maximum of 10000 (config.json "
		  "max_timeout_ms)" },
		{ "{\"memory_mb\":257}", TG_ERR_LIMIT,
		  "limits.memory_mb: 257 exceeds this home's maximum of 256 (config.json "
		  "max_memory_mb)" },
		{ "{\"output_kb\":1025}", TG_ERR_LIMIT,
		  "limits.output_kb: 1025 exceeds this home's maximum of 1024 (config.json "
		  "max_output_kb)" },
		{ "{\"max_tool_calls\":100000}", TG_ERR_LIMIT,
		  "limits.max_tool_calls: 100000 exceeds this home's maximum of 64 ..." },
		/* the keys are checked first, then the values in the table's order */
		{ "{\"max_tool_calls\":100000,\"timeout_ms\":1}", TG_ERR_INVALID,
		  "limits.timeout_ms: must be at least 10" },
	};
	tg_config cfg;
	size_t i;

	(void)state;
	load_config(&cfg, NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_json_ json_t *j = parse(cases[i].limits);
		const char *msg = cases[i].msg, *got;
		size_t n = strlen(msg);
		reg_limits l;
		int rc = reg_limits_parse(&l, &cfg, j, "limits");

		got = tg_error_last()->message;
		if (n > 3 && strcmp(msg + n - 3, "...") == 0)
			n -= 3;
		else
			n = strlen(got) > n ? strlen(got) : n;
		if (rc != cases[i].code || strncmp(got, msg, n) != 0)
			fail_msg("case %zu (%s): rc %d, \"%s\"; want %d, \"%s\"", i,
				 cases[i].limits, rc, got, cases[i].code, msg);
	}
	reg_config_clear(&cfg);
}

static void test_parse_where(void **state)
{
	_cleanup_json_ json_t *bad = parse("{\"timeout_ms\":1}"), *key = parse("{\"x\":1}");
	tg_config cfg;

	(void)state;
	load_config(&cfg, NULL);
	assert_int_equal(reg_limits_parse(NULL, &cfg, bad, "run.limits"), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "run.limits.timeout_ms: must be at least 10");
	assert_int_equal(reg_limits_parse(NULL, &cfg, key, "run.limits"), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "run.limits: unknown key \"x\"");
	reg_config_clear(&cfg);
}

static void test_ceilings_cut_defaults(void **state)
{
	_cleanup_json_ json_t *over = parse("{\"max_tool_calls\":9}");
	tg_config cfg;
	reg_limits l;

	(void)state;
	load_config(&cfg, "{\"max_timeout_ms\":1000,\"max_memory_mb\":32,\"max_output_kb\":8,"
			  "\"max_tool_calls\":8}");
	assert_int_equal(reg_limits_parse(&l, &cfg, NULL, "limits"), 0);
	expect_limits(&l, 1000, 32, 8, 8);
	assert_int_equal(reg_limits_parse(&l, &cfg, over, "limits"), TG_ERR_LIMIT);
	reg_config_clear(&cfg);

	/* a ceiling of 0 calls: a manifest may ask for none only, and a run
	 * that asks for nothing keeps the default (as the bridge always did) */
	load_config(&cfg, "{\"max_tool_calls\":0}");
	assert_int_equal(reg_limits_parse(&l, &cfg, NULL, "limits"), 0);
	expect_limits(&l, 2000, 64, 1024, 16);
	assert_int_equal(reg_limits_parse(&l, &cfg, over, "limits"), TG_ERR_LIMIT);
	reg_config_clear(&cfg);
}

static void test_read_stored(void **state)
{
	_cleanup_json_ json_t *ok = parse("{\"timeout_ms\":3000,\"memory_mb\":128,"
					  "\"output_kb\":64,\"max_tool_calls\":0}"),
			      *odd = parse("{\"timeout_ms\":5,\"memory_mb\":0,\"output_kb\":\"x\","
					   "\"max_tool_calls\":-1,\"cpu\":1}"),
			      *over = parse("{\"timeout_ms\":3000,\"memory_mb\":128}"), *j = NULL;
	tg_config cfg;
	reg_limits l;

	(void)state;
	load_config(&cfg, NULL);
	reg_limits_read(&l, &cfg, ok);
	expect_limits(&l, 3000, 128, 64, 0);
	/* below a floor but at least 1: taken; 0, a string, below 0: the default */
	reg_limits_read(&l, &cfg, odd);
	expect_limits(&l, 5, 64, 1024, 16);
	reg_limits_read(&l, &cfg, NULL);
	expect_limits(&l, 2000, 64, 1024, 16);
	j = reg_limits_json(&l);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "timeout_ms")), 2000);
	assert_int_equal(json_integer_value(json_object_get(j, "memory_mb")), 64);
	assert_int_equal(json_integer_value(json_object_get(j, "output_kb")), 1024);
	reg_config_clear(&cfg); /* j goes with the cleanup */

	/* a ceiling lowered after the limits were stored: the default, cut */
	load_config(&cfg, "{\"max_timeout_ms\":2500,\"max_memory_mb\":100}");
	reg_limits_read(&l, &cfg, over);
	expect_limits(&l, 2000, 64, 1024, 16);
	reg_config_clear(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_defaults), cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_parse_where),    cmocka_unit_test(test_ceilings_cut_defaults),
		cmocka_unit_test(test_read_stored),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
