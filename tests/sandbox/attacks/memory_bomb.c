/* Touch memory until something stops us. */
#include "attack.h"
int main(void)
{
	size_t total = 0;
	for (;;) {
		char *p = malloc(1 << 20);
		if (!p) {
			printf("malloc failed after %zu MB\n", total >> 20);
			return 0;
		}
		memset(p, 1, 1 << 20);
		total += 1 << 20;
	}
}
