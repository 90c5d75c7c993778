/* test_embedded_resource: the conformance suite's embedded resource tool. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();

	tg_out_content_begin();
	tg_out_content_resource_text("test://embedded-resource", "text/plain",
				     "This is an embedded resource content.");
	tg_out_content_end();
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
