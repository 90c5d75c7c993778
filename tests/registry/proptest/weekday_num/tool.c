/* weekday_num: the ISO number of a weekday. Bug: the name table stops at
 * saturday; sunday, which the enum allows, finds no entry and its NULL
 * name is compared (SIGSEGV). The tests try weekdays. */
#include <string.h>
#include <toolgate/tool.h>

static const char *const names[8] = { "mon", "tue", "wed", "thu", "fri", "sat" };

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *day = tg_arg_str(a, "day", "");
	int i = 0;

	while (strcmp(names[i], day) != 0)
		i++;
	tg_out_object_begin();
	tg_out_key_int("iso", i + 1);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
