// expect: pass
/* Factorials with overflow checks. */
#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>
#include <limits.h>

int main(void)
{
	uint64_t f = 1;
	unsigned n, i;

	if (scanf("%u", &n) != 1)
		return 1;
	for (i = 2; i <= n; i++) {
		if (__builtin_mul_overflow(f, (uint64_t)i, &f)) {
			printf("{\"error\":\"overflow at %u\",\"max_int\":%d}\n", i, INT_MAX);
			return 1;
		}
	}
	printf("{\"n\":%u,\"factorial\":%" PRIu64 "}\n", n, f);
	return 0;
}
