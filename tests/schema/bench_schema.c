/*
 * tests/schema/bench_schema.c: the cost of validation with a 20-keyword
 * input schema, on a small argument object and on a 1 MB one, through a
 * compiled schema (tg_schema_run) and through tg_schema_validate (which
 * compiles on every call). Prints the medians; fails if a median exceeds
 * ten times the target (0.2 ms for the small call, 20 ms for 1 MB), a margin
 * for loaded machines that a regression to quadratic or per-byte-slow
 * behaviour still crosses.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "registry/schema/schema.h"

static const char *const schema_text =
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
	"\"$defs\":{\"rec\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\",\"maxLength\":8},"
	"\"v\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"k\",\"v\"],\"additionalProperties\":false}},"
	"\"properties\":{\"text\":{\"type\":\"string\",\"minLength\":1,\"pattern\":\"^[a-z .]*$\"},"
	"\"mode\":{\"enum\":[\"fast\",\"exact\"]},\"n\":{\"type\":\"number\",\"multipleOf\":0.5,\"maximum\":1e9},"
	"\"xs\":{\"type\":\"array\",\"items\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000000},\"maxItems\":200000},"
	"\"recs\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/rec\"}},"
	"\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true}},"
	"\"required\":[\"text\"],\"additionalProperties\":false,\"minProperties\":1,"
	"\"propertyNames\":{\"maxLength\":16}}";

/* Keywords in a schema document (members of schema objects, recursively). */
static size_t keywords(const json_t *v)
{
	size_t n = 0;
	const char *key;
	json_t *m;
	if (json_is_array(v))
		for (size_t i = 0; i < json_array_size(v); i++)
			n += keywords(json_array_get(v, i));
	json_object_foreach((json_t *)v, key, m)
		n += (strcmp(key, "properties") && strcmp(key, "$defs")) + keywords(m);
	return n;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median time of runs calls (each repeated reps times) in ms per call;
 * *p99 (may be NULL) the 99th percentile of the runs. */
static double median(const tg_schema *c, const json_t *schema, const json_t *v, int runs, int reps,
		     double *p99)
{
	double *t = calloc((size_t)runs, sizeof(double)), m;
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms();
		for (int k = 0; k < reps; k++) {
			int r = c ? tg_schema_run(c, v, "args") : tg_schema_validate(schema, v);
			if (r != 0) {
				fprintf(stderr, "bench_schema: refused: %s\n", tg_error_last()->message);
				exit(1);
			}
		}
		t[i] = (now_ms() - t0) / reps;
	}
	qsort(t, (size_t)runs, sizeof(double), cmp_double);
	m = t[runs / 2];
	if (p99)
		*p99 = t[(runs * 99) / 100];
	free(t);
	return m;
}

static json_t *big_args(void)
{
	json_t *v = json_object(), *xs = json_array(), *recs = json_array(), *tags = json_array();
	char *text = malloc(400001);
	for (int i = 0; i < 400000; i++)
		text[i] = i % 7 == 6 ? ' ' : (char)('a' + i % 26);
	text[400000] = '\0';
	json_object_set_new(v, "text", json_string(text));
	free(text);
	for (int i = 0; i < 70000; i++)
		json_array_append_new(xs, json_integer(i * 7 % 1000000));
	for (int i = 0; i < 6000; i++)
		json_array_append_new(recs, json_pack("{s:s,s:i}", "k", "abcdef", "v", i));
	for (int i = 0; i < 3000; i++) {
		char tag[32];
		snprintf(tag, sizeof(tag), "tag-%d", i);
		json_array_append_new(tags, json_string(tag));
	}
	json_object_set_new(v, "xs", xs);
	json_object_set_new(v, "recs", recs);
	json_object_set_new(v, "tags", tags);
	json_object_set_new(v, "mode", json_string("fast"));
	json_object_set_new(v, "n", json_real(12.5));
	return v;
}

int main(void)
{
	json_t *schema = json_loads(schema_text, 0, NULL);
	json_t *small = json_loads("{\"text\":\"hello world.\",\"mode\":\"fast\",\"n\":3.5,\"xs\":[1,2,3],"
				   "\"recs\":[{\"k\":\"a\",\"v\":1}],\"tags\":[\"x\",\"y\"]}", 0, NULL);
	json_t *big = big_args();
	char *dump = json_dumps(big, JSON_COMPACT);
	tg_schema *c;
	double small_run, small_old, big_run, big_old, small_p99, big_p99;
	if (!schema || !small || tg_schema_compile(&c, schema, "input_schema", TG_SCHEMA_TOP_OBJECT) < 0) {
		fprintf(stderr, "bench_schema: setup: %s\n", tg_error_last()->message);
		return 1;
	}
	small_run = median(c, NULL, small, 2001, 1, &small_p99);
	small_old = median(NULL, schema, small, 51, 50, NULL);
	big_run = median(c, NULL, big, 21, 1, &big_p99);
	big_old = median(NULL, schema, big, 11, 1, NULL);
	printf("schema of %zu keywords; the large argument is %zu bytes\n", keywords(schema), strlen(dump));
	printf("small args: tg_schema_run %.4f ms, tg_schema_validate (compiles) %.4f ms (median)\n",
	       small_run, small_old);
	printf("1 MB args:  tg_schema_run %.2f ms, tg_schema_validate (compiles) %.2f ms (median)\n",
	       big_run, big_old);
	printf("p99 of tg_schema_run: small args %.4f ms (2001 calls), 1 MB args %.2f ms (21 calls)\n",
	       small_p99, big_p99);
	free(dump);
	tg_schema_free(c);
	json_decref(schema);
	json_decref(small);
	json_decref(big);
	return small_run < 2.0 && small_old < 2.0 && big_run < 200.0 && big_old < 200.0 ? 0 : 1;
}
