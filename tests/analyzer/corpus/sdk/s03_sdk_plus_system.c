// expect: process
/* The SDK does not make a forbidden call acceptable. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	int rc = system(tg_arg_str(a, "cmd", "true"));
	tg_out_object_begin();
	tg_out_key_int("rc", rc);
	tg_out_end();
	return 0;
}
