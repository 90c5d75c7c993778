/* test_error_handling: the conformance suite's failing tool (unless fail
 * is false). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();

	if (tg_arg_bool(a, "fail", true))
		tg_tool_fail("This tool intentionally returns an error for testing");
	tg_out_object_begin();
	tg_out_key_bool("ok", true);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
