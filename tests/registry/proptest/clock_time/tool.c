/* clock_time: minutes as hh:mm. Bug: the buffer holds "hh:mm" only; from
 * 100 hours on the text is longer and the fortified sprintf aborts
 * (SIGABRT). The tests stay within a day. */
#include <stdio.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long m = tg_arg_int(a, "minutes", 0);
	char buf[6];

	sprintf(buf, "%02lld:%02lld", m / 60, m % 60);
	tg_out_object_begin();
	tg_out_key_str("time", buf);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
