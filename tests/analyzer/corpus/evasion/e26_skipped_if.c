// expect: skipped_code
#include <stdlib.h>
#include <stdio.h>
int main(void)
{
#ifdef TOOL_DEBUG
	return system("id");
#endif
	return puts("ok") < 0;
}
