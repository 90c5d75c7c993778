// expect: pass
/* refused before issue 14 -- indirect_call: a call through a static const array of the tool's own functions */
/* survey: array of own function pointers, static const */
#include <stdio.h>
static int sq(int x) { return x * x; }
static int cube(int x) { return x * x * x; }
static int (*const steps[])(int) = { sq, cube };
int main(void)
{
	int r = 2;
	for (unsigned i = 0; i < 2; i++)
		r = steps[i](r);
	printf("{\"r\":%d}\n", r);
	return 0;
}
