// expect: pass
/* refused before issue 14 -- include: <iso646.h> was outside the include allowlist */
/* survey: iso646.h spellings */
#include <iso646.h>
#include <stdio.h>
int main(void)
{
	int a = 1, b = 0;
	printf("{\"r\":%d}\n", (a and not b) or (a bitand b));
	return 0;
}
