// expect: pass
/* refused before issue 14 -- include: <sys/types.h> was outside the include allowlist */
/* survey: sys/types.h for ssize_t/off_t */
#include <stdio.h>
#include <sys/types.h>
int main(void)
{
	ssize_t n = -1;
	off_t off = 1024;
	printf("{\"n\":%zd,\"off\":%lld}\n", n, (long long)off);
	return 0;
}
