/* 1 GB to stdout. */
#include "attack.h"
int main(void)
{
	static char buf[1 << 16];
	size_t i;
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < (1u << 30) / sizeof(buf); i++)
		if (write(1, buf, sizeof(buf)) < 0)
			return 1;
	return 0;
}
