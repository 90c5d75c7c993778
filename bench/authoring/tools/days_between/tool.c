#define _GNU_SOURCE
#include <time.h>
#include <toolgate/tool.h>

static time_t parse_day(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	if (!strptime(s, "%Y-%m-%d", &tm))
		tg_tool_fail("not a date (YYYY-MM-DD): %s", s);
	return timegm(&tm);
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	time_t f = parse_day(tg_arg_str(a, "from", ""));
	time_t t = parse_day(tg_arg_str(a, "to", ""));
	tg_out_object_begin();
	tg_out_key_int("days", (long long)(difftime(t, f) / 86400));
	tg_out_end();
	return 0;
}
