// expect: pass
/* survey: number parsing with strtol/strtod and errno */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	char *end;
	long v;
	errno = 0;
	v = strtol("123456abc", &end, 10);
	if (errno == ERANGE || v == LONG_MAX)
		return 1;
	printf("{\"v\":%ld,\"rest\":\"%s\",\"d\":%g}\n", v, end, strtod("1e3", NULL));
	return 0;
}
