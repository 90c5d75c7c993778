#include <toolgate/tool.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	size_t n = tg_arg_array_len(a, "xs");
	const tg_value *xs = tg_arg_array(a, "xs");
	double *v = calloc(n ? n : 1, sizeof(double));

	if (!v)
		tg_tool_fail("out of memory");
	for (size_t i = 0; i < n; i++)
		v[i] = tg_item_num(xs, i);
	qsort(v, n, sizeof(double), cmp);
	tg_out_object_begin();
	tg_out_key_num("median", n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
	tg_out_end();
	free(v);
	return 0;
}
