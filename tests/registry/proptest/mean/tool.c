/* mean: the integer mean of a list of integers. Bug: an empty list
 * divides by zero (SIGFPE); the schema allows it and no test tries it. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *xs = tg_arg_array(a, "numbers");
	long long sum = 0, n = (long long)xs->len;

	for (size_t i = 0; i < xs->len; i++)
		sum += tg_value_int(tg_value_at(xs, i)) % 1000000;
	tg_out_object_begin();
	tg_out_key_int("mean", sum / n);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
