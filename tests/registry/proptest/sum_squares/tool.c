/* sum_squares: the sum of the squares of a list of integers. Bug: the
 * squares are computed in 32-bit int, so a value near the schema's maximum
 * overflows to a negative sum, which the output_schema (minimum 0) does
 * not allow; the tests use small values. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *xs = tg_arg_array(a, "numbers");
	long long sum = 0;

	for (size_t i = 0; i < xs->len; i++) {
		int x = (int)tg_value_int(tg_value_at(xs, i));
		sum += (int)((unsigned)x * (unsigned)x); /* wraps like the int product it stands for */
	}
	tg_out_object_begin();
	tg_out_key_int("sum", sum);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
