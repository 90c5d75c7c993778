// expect: pass
/* Days between two ISO dates on stdin, and the current UTC time. */
#include <stdio.h>
#include <string.h>
#include <time.h>

static int parse_date(const char *s, struct tm *tm)
{
	memset(tm, 0, sizeof(*tm));
	if (sscanf(s, "%d-%d-%d", &tm->tm_year, &tm->tm_mon, &tm->tm_mday) != 3)
		return -1;
	tm->tm_year -= 1900;
	tm->tm_mon -= 1;
	tm->tm_hour = 12;
	return 0;
}

int main(void)
{
	char a[32], b[32], now_s[64];
	struct tm ta, tb, now_tm;
	time_t now = time(NULL);

	if (scanf("%31s %31s", a, b) != 2 || parse_date(a, &ta) < 0 || parse_date(b, &tb) < 0)
		return 1;
	double days = difftime(mktime(&tb), mktime(&ta)) / 86400.0;
	gmtime_r(&now, &now_tm);
	strftime(now_s, sizeof(now_s), "%Y-%m-%dT%H:%M:%SZ", &now_tm);
	printf("{\"days\":%.0f,\"now\":\"%s\"}\n", days, now_s);
	return 0;
}
