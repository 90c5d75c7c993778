#define _GNU_SOURCE
#include <time.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	struct tm tm;
	char out[32];
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (!strptime(tg_arg_str(a, "date", ""), "%Y-%m-%d", &tm))
		tg_tool_fail("date must be YYYY-MM-DD");
	t = timegm(&tm) + (time_t)tg_arg_int(a, "days", 0) * 86400;
	gmtime_r(&t, &tm);
	strftime(out, sizeof(out), "%Y-%m-%d", &tm);
	tg_out_object_begin();
	tg_out_key_str("date", out);
	tg_out_key_int("weekday", tm.tm_wday);
	tg_out_end();
	return 0;
}
