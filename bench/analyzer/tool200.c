/*
 * bench/analyzer/tool200.c: a realistic ~200-line tool for the analyzer
 * benchmark: it reads a JSON-ish list of records on stdin, parses, sorts,
 * aggregates and prints them. run.sh replicates the BODY section with
 * renamed functions to make the 2,000-line variant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <limits.h>
#include <errno.h>
#include <inttypes.h>

#define MAX_RECORDS 1024
#define NAME_LEN 64

struct record {
	char name[NAME_LEN];
	double value;
	int64_t count;
	bool flagged;
};

/* BEGIN BODY */
static size_t t0_skip_space(const char *s, size_t i, size_t n)
{
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	return i;
}

static int t0_parse_string(const char *s, size_t *i, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	if (*i >= n || s[*i] != '"')
		return -1;
	(*i)++;
	while (*i < n && s[*i] != '"') {
		char c = s[*i];
		if (c == '\\' && *i + 1 < n) {
			(*i)++;
			c = s[*i];
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
		}
		if (o + 1 < cap)
			out[o++] = c;
		(*i)++;
	}
	if (*i >= n)
		return -1;
	(*i)++;
	out[o] = 0;
	return 0;
}

static int t0_parse_number(const char *s, size_t *i, size_t n, double *out)
{
	char buf[64];
	size_t k = 0;
	char *end;
	while (*i < n && k + 1 < sizeof(buf) &&
	       (isdigit((unsigned char)s[*i]) || strchr("+-.eE", s[*i]))) {
		buf[k++] = s[*i];
		(*i)++;
	}
	buf[k] = 0;
	if (k == 0)
		return -1;
	errno = 0;
	*out = strtod(buf, &end);
	if (errno || *end)
		return -1;
	return 0;
}

static int t0_parse_record(const char *s, size_t *i, size_t n, struct record *r)
{
	char key[32];
	double num;
	memset(r, 0, sizeof(*r));
	*i = t0_skip_space(s, *i, n);
	if (*i >= n || s[*i] != '{')
		return -1;
	(*i)++;
	for (;;) {
		*i = t0_skip_space(s, *i, n);
		if (*i < n && s[*i] == '}') {
			(*i)++;
			return 0;
		}
		if (t0_parse_string(s, i, n, key, sizeof(key)) < 0)
			return -1;
		*i = t0_skip_space(s, *i, n);
		if (*i >= n || s[*i] != ':')
			return -1;
		(*i)++;
		*i = t0_skip_space(s, *i, n);
		if (strcmp(key, "name") == 0) {
			if (t0_parse_string(s, i, n, r->name, sizeof(r->name)) < 0)
				return -1;
		} else if (strcmp(key, "flagged") == 0) {
			r->flagged = *i + 4 <= n && strncmp(s + *i, "true", 4) == 0;
			*i += r->flagged ? 4 : 5;
		} else {
			if (t0_parse_number(s, i, n, &num) < 0)
				return -1;
			if (strcmp(key, "value") == 0)
				r->value = num;
			else if (strcmp(key, "count") == 0)
				r->count = (int64_t)num;
		}
		*i = t0_skip_space(s, *i, n);
		if (*i < n && s[*i] == ',')
			(*i)++;
	}
}

static int t0_cmp_value(const void *a, const void *b)
{
	const struct record *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

static double t0_stddev(const struct record *r, size_t n, double mean)
{
	double acc = 0;
	size_t i;
	for (i = 0; i < n; i++)
		acc += (r[i].value - mean) * (r[i].value - mean);
	return n > 1 ? sqrt(acc / (double)(n - 1)) : 0;
}

static void t0_print_name(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(isprint((unsigned char)*s) ? *s : '?');
	}
	putchar('"');
}

static int t0_run(const char *in, size_t n)
{
	static struct record recs[MAX_RECORDS];
	size_t i = 0, count = 0, k;
	double sum = 0;
	int64_t total = 0;
	i = t0_skip_space(in, i, n);
	if (i >= n || in[i] != '[')
		return -1;
	i++;
	while (count < MAX_RECORDS) {
		i = t0_skip_space(in, i, n);
		if (i < n && in[i] == ']')
			break;
		if (t0_parse_record(in, &i, n, &recs[count]) < 0)
			return -1;
		sum += recs[count].value;
		if (recs[count].count > 0 && total <= INT64_MAX - recs[count].count)
			total += recs[count].count;
		count++;
		i = t0_skip_space(in, i, n);
		if (i < n && in[i] == ',')
			i++;
	}
	qsort(recs, count, sizeof(recs[0]), t0_cmp_value);
	double mean = count ? sum / (double)count : 0;
	printf("{\"n\":%zu,\"mean\":%g,\"stddev\":%g,\"total\":%" PRId64 ",\"sorted\":[", count,
	       mean, t0_stddev(recs, count, mean), total);
	for (k = 0; k < count; k++) {
		if (k)
			putchar(',');
		t0_print_name(recs[k].name);
	}
	puts("]}");
	return 0;
}
/* END BODY */

int main(void)
{
	static char in[1 << 16];
	size_t n = fread(in, 1, sizeof(in) - 1, stdin);
	in[n] = 0;
	if (t0_run(in, n) < 0) {
		fputs("{\"error\":\"bad input\"}\n", stderr);
		return 1;
	}
	return 0;
}
