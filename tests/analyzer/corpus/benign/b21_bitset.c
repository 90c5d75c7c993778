// expect: pass
/* Population count and parity of 64-bit numbers. */
#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>

int main(void)
{
	uint64_t v;
	int first = 1;

	putchar('[');
	while (scanf("%" SCNu64, &v) == 1) {
		printf("%s{\"value\":%" PRIu64 ",\"bits\":%d,\"parity\":%d,\"lead\":%d}",
		       first ? "" : ",", v, __builtin_popcountll(v), __builtin_parityll(v),
		       v ? __builtin_clzll(v) : 64);
		first = 0;
	}
	puts("]");
	return 0;
}
