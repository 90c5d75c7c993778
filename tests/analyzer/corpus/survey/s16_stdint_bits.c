// expect: pass
/* survey: stdint and bit operations */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
static uint32_t rotl(uint32_t x, unsigned r)
{
	return (x << (r & 31)) | (x >> ((32 - r) & 31));
}
int main(void)
{
	uint64_t v = UINT64_C(0xF0F0);
	printf("{\"pop\":%d,\"rot\":%" PRIu32 ",\"low\":%" PRIu64 "}\n", __builtin_popcountll(v),
	       rotl(0x80000001u, 1), v & -v);
	return 0;
}
