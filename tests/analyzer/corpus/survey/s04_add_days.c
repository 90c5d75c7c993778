// expect: pass
/* survey: add days to a date and format it (strftime in UTC) */
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct tm tm = { 0 };
	char buf[32];
	time_t t;
	tm.tm_year = 124;
	tm.tm_mon = 0;
	tm.tm_mday = 31;
	t = timegm(&tm) + 30 * 86400;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
	printf("{\"date\":\"%s\"}\n", buf);
	return 0;
}
