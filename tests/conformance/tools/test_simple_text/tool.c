/* test_simple_text: the conformance suite's simple text tool. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();

	tg_out_object_begin();
	tg_out_key_str("text", "This is a simple text response for testing.");
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
