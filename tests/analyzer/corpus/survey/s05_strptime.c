// expect: pass
/* refused before issue 14 -- not_allowed: strptime was not on the allowlist */
/* survey: parse a date with strptime */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct tm tm = { 0 };
	if (!strptime("2024-05-17 10:30", "%Y-%m-%d %H:%M", &tm))
		return 1;
	printf("{\"weekday\":%d,\"yday\":%d}\n", tm.tm_wday, tm.tm_yday);
	return 0;
}
