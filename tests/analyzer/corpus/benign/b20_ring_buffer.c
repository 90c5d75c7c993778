// expect: pass
/* Print the last 10 lines of stdin (tail) with a ring buffer. */
#include <stdio.h>
#include <string.h>

#define KEEP 10
#define WIDTH 256

int main(void)
{
	static char ring[KEEP][WIDTH];
	size_t total = 0, i, start;

	while (fgets(ring[total % KEEP], WIDTH, stdin))
		total++;
	start = total > KEEP ? total - KEEP : 0;
	for (i = start; i < total; i++)
		fputs(ring[i % KEEP], stdout);
	return 0;
}
