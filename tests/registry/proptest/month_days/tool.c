/* month_days: the days of the month of a date. Bug: December is missing
 * from the switch, whose default aborts (SIGABRT); the tests try other
 * months. The date is a string with format "date": only valid dates reach
 * the switch, the rest are refused cleanly. */
#include <stdio.h>
#include <stdlib.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *d = tg_arg_str(a, "date", "");
	int y, m, day, n;

	if (sscanf(d, "%4d-%2d-%2d", &y, &m, &day) != 3)
		tg_tool_fail("date: expected YYYY-MM-DD");
	switch (m) {
	case 1: case 3: case 5: case 7: case 8: case 10:
		n = 31;
		break;
	case 4: case 6: case 9: case 11:
		n = 30;
		break;
	case 2:
		n = (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 29 : 28;
		break;
	default:
		abort();
	}
	tg_out_object_begin();
	tg_out_key_int("days", n);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
