// expect: pass
/* survey: 128-bit and 64-bit arithmetic */
#include <stdint.h>
#include <stdio.h>
int main(void)
{
	unsigned __int128 p = (unsigned __int128)UINT64_MAX * 3u;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
	printf("{\"hi\":%llu,\"lo\":%llu}\n", (unsigned long long)hi, (unsigned long long)lo);
	return 0;
}
