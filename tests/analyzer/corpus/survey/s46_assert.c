// expect: pass
/* survey: assert for invariants */
#include <assert.h>
#include <stdio.h>
int main(void)
{
	int n = 3;
	assert(n > 0);
	static_assert(sizeof(int) >= 4, "int too small");
	printf("{\"n\":%d}\n", n);
	return 0;
}
