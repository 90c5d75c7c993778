/* stats: count, mean, median, population standard deviation, min and max of
 * an array of numbers. */
#include <toolgate/tool.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Newton's method, so the tool needs no libm at link time. */
static double square_root(double x)
{
	double r = x > 1 ? x : 1, prev;
	if (x <= 0)
		return 0;
	do {
		prev = r;
		r = (r + x / r) / 2;
	} while (r < prev);
	return prev;
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *values = tg_arg_array(a, "values");
	size_t n = tg_value_len(values), i;
	double sum = 0, sq = 0, mean, median, *v;

	if (n == 0)
		tg_tool_fail("values: need at least one number");
	v = malloc(n * sizeof(*v));
	if (!v)
		tg_tool_fail("out of memory");
	for (i = 0; i < n; i++) {
		v[i] = tg_item_num(values, i);
		sum += v[i];
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	qsort(v, n, sizeof(*v), cmp_double);
	median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;

	tg_out_object_begin();
	tg_out_key_int("count", (long long)n);
	tg_out_key_num("mean", mean);
	tg_out_key_num("median", median);
	tg_out_key_num("stddev", square_root(sq / (double)n));
	tg_out_key_num("min", v[0]);
	tg_out_key_num("max", v[n - 1]);
	tg_out_end();
	free(v);
	tg_tool_args_free(a);
	return 0;
}
