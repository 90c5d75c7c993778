/* tests/sdk/tools/echo.c: parse the arguments and write them back. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	tg_out_value(a);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
