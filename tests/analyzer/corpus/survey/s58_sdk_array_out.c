// expect: pass
/* survey: SDK: array in, array out */
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	size_t n = tg_arg_array_len(a, "xs");
	const tg_value *xs = tg_arg_array(a, "xs");
	tg_out_array_begin();
	for (size_t i = 0; i < n; i++)
		tg_out_num(tg_item_num(xs, i) * 2);
	tg_out_array_end();
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
