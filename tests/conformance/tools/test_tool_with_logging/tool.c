/* test_tool_with_logging: three lines on stderr, which serve sends to the
 * client as log messages. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();

	fprintf(stderr, "Tool execution started\n");
	fprintf(stderr, "Tool processing data\n");
	fprintf(stderr, "Tool execution completed\n");
	tg_out_object_begin();
	tg_out_key_bool("done", true);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
