/* pair_ratio: the integer ratio of a [count, per] pair. Bug: a per of 0
 * (the schema's minimum of the pair's second position) divides by zero
 * (SIGFPE); no test tries it. The pair is a prefixItems tuple. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *p = tg_arg_array(a, "pair");
	long long count = tg_value_int(tg_value_at(p, 0));
	long long per = tg_value_int(tg_value_at(p, 1));

	tg_out_object_begin();
	tg_out_key_int("ratio", count / per);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
