/* share_left: how many times the share left (100 - pct) fits in 10000.
 * Bug: pct at 100, the maximum its allOf allows, divides by zero (SIGFPE);
 * no test tries it. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long pct = tg_arg_int(a, "pct", 0);

	tg_out_object_begin();
	tg_out_key_int("fits", 10000 / (100 - pct));
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
