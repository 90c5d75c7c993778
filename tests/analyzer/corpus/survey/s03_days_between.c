// expect: pass
/* survey: date arithmetic with timegm/gmtime_r */
#include <stdio.h>
#include <string.h>
#include <time.h>
static time_t day(int y, int m, int d)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	return timegm(&tm);
}
int main(void)
{
	double s = difftime(day(2024, 3, 1), day(2024, 2, 1));
	printf("{\"days\":%.0f}\n", s / 86400);
	return 0;
}
