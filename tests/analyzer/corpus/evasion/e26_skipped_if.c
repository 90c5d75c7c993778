// expect: skipped_code
#include <stdlib.h>
#include <stdio.h>
int main(void)
{
#if defined(__GNUC__) && !defined(__clang__)
	return system("id");
#endif
	return puts("ok") < 0;
}
