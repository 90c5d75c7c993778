/* test_tool_with_progress: a quick tool; serve reports the progress of its
 * call (start, run, end). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();

	tg_out_object_begin();
	tg_out_key_bool("done", true);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
