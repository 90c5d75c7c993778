/* A tool carrying a 60 MB initialised static array: it passes vetting, and
 * its binary is refused by max_binary_mb. */
#include <stdio.h>

static char big[60u * 1000u * 1000u] = { 1, 2, 3 };

int main(void)
{
	char in[64];
	size_t n = fread(in, 1, sizeof(in), stdin);
	printf("{\"first\":%d}\n", big[n % 2]);
	return 0;
}
