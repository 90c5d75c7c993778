/* percent_bar: a bar of '#' for a percentage, one per 2 points. Bug: the
 * bar is drawn one '#' per point into a buffer of 50, so past 49 points the
 * fortified memset aborts (SIGABRT); the tests stay below half. */
#include <string.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long pct = tg_arg_int(a, "pct", 0);
	char bar[50];
	size_t n = (size_t)pct;

	memset(bar, '#', n);
	bar[n / 2] = 0;
	tg_out_object_begin();
	tg_out_key_str("bar", bar);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
