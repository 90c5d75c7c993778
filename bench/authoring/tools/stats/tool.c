#include <math.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *xs = tg_arg_array(a, "xs");
	size_t n = tg_arg_array_len(a, "xs");
	double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		double x = tg_item_num(xs, i);
		sum += x;
		sq += x * x;
		lo = fmin(lo, x);
		hi = fmax(hi, x);
	}
	double mean = sum / (double)n;
	tg_out_object_begin();
	tg_out_key_num("mean", mean);
	tg_out_key_num("sd", sqrt(sq / (double)n - mean * mean));
	tg_out_key_num("min", lo);
	tg_out_key_num("max", hi);
	tg_out_end();
	return 0;
}
