// expect: pass
/* refused before issue 14 -- include + not_allowed: <strings.h> refused, ffs not on the allowlist */
/* survey: strings.h case-insensitive compare */
#include <stdio.h>
#include <strings.h>
int main(void)
{
	printf("{\"eq\":%d,\"ffs\":%d}\n", strcasecmp("Hello", "hELLO") == 0, ffs(8));
	return 0;
}
