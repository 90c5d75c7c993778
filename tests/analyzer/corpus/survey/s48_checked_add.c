// expect: pass
/* survey: overflow-checked arithmetic */
#include <limits.h>
#include <stdio.h>
int main(void)
{
	long r;
	int over = __builtin_add_overflow(LONG_MAX, 1L, &r);
	printf("{\"overflow\":%s}\n", over ? "true" : "false");
	return 0;
}
