// expect: pass
/* Sum and mean of the "xs" number array, with a failure path. */
#include <toolgate/tool.h>
#include <math.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *xs = tg_arg_array(a, "xs");
	size_t n = tg_value_len(xs), k;
	double sum = 0;

	if (n == 0)
		tg_tool_fail("xs: needs at least one number");
	for (k = 0; k < n; k++)
		sum += tg_item_num(xs, k);
	tg_out_object_begin();
	tg_out_key_num("sum", sum);
	tg_out_key_num("mean", sum / (double)n);
	tg_out_key_num("rms", sqrt(sum * sum) / (double)n);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
