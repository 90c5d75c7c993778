/* bench run 0 (this line is rewritten by run.sh so that every run differs) */
/* bench/registry/stats.c: the benchmark's tool, about 100 lines written
 * on the SDK: summary statistics of an array of numbers ("values") with an
 * optional "precision" for rounding (no libm: square root by Newton). Sorted copy for the median and the
 * quartiles; refuses empty input and more than 4096 values. */
#include <toolgate/tool.h>

#define MAX_VALUES 4096

static double values[MAX_VALUES];

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile(const double *sorted, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;
	double frac = pos - (double)lo;

	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static double root(double x)
{
	double r = x > 1.0 ? x : 1.0;
	int i;

	if (x <= 0.0)
		return 0.0;
	for (i = 0; i < 60; i++)
		r = 0.5 * (r + x / r);
	return r;
}

static double round_to(double v, long long digits)
{
	double scale = 1.0, t;
	long long i;

	for (i = 0; i < digits; i++)
		scale *= 10.0;
	t = v * scale + (v < 0 ? -0.5 : 0.5);
	return (double)(long long)t / scale;
}

static size_t read_values(const tg_value *args)
{
	const tg_value *arr = tg_value_get(args, "values");
	size_t i;

	if (tg_value_type(arr) != TG_ARRAY)
		tg_tool_fail("values: must be an array of numbers");
	if (tg_value_len(arr) == 0)
		tg_tool_fail("values: must not be empty");
	if (tg_value_len(arr) > MAX_VALUES)
		tg_tool_fail("values: at most %d numbers", MAX_VALUES);
	for (i = 0; i < tg_value_len(arr); i++) {
		const tg_value *v = tg_value_at(arr, i);
		if (tg_value_type(v) != TG_NUMBER)
			tg_tool_fail("values[%zu]: must be a number", i);
		values[i] = tg_value_num(v);
	}
	return tg_value_len(arr);
}

static double mean_of(const double *v, size_t n)
{
	double sum = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

static double stddev_of(const double *v, size_t n, double mean)
{
	double acc = 0.0;
	size_t i;

	if (n < 2)
		return 0.0;
	for (i = 0; i < n; i++)
		acc += (v[i] - mean) * (v[i] - mean);
	return root(acc / (double)(n - 1));
}

int main(void)
{
	tg_tool_args *args = tg_tool_read_args();
	long long precision = tg_arg_int(args, "precision", 3);
	size_t n = read_values(args);
	double mean, sd;

	if (precision < 0 || precision > 9)
		tg_tool_fail("precision: must be 0 to 9");
	mean = mean_of(values, n);
	sd = stddev_of(values, n, mean);
	qsort(values, n, sizeof(values[0]), cmp_double);
	tg_out_object_begin();
	tg_out_key_int("count", (long long)n);
	tg_out_key_num("min", round_to(values[0], precision));
	tg_out_key_num("max", round_to(values[n - 1], precision));
	tg_out_key_num("mean", round_to(mean, precision));
	tg_out_key_num("median", round_to(quantile(values, n, 0.5), precision));
	tg_out_key_num("q1", round_to(quantile(values, n, 0.25), precision));
	tg_out_key_num("q3", round_to(quantile(values, n, 0.75), precision));
	tg_out_key_num("stddev", round_to(sd, precision));
	tg_out_end();
	return 0;
}
