// expect: pass
/* refused before issue 14 -- include: <uchar.h> was outside the include allowlist */
/* survey: UTF-8 to char32_t with uchar.h */
#include <stdio.h>
#include <string.h>
#include <uchar.h>
int main(void)
{
	const char *s = "A";
	char32_t c = 0;
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t n = mbrtoc32(&c, s, strlen(s), &st);
	printf("{\"n\":%d,\"cp\":%u}\n", (int)n, (unsigned)c);
	return 0;
}
