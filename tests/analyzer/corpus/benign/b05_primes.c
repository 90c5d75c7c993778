// expect: pass
/* Sieve of Eratosthenes up to the number given on stdin (max 1e6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

int main(void)
{
	long limit = 0, i, j, count = 0;
	bool *composite;

	if (scanf("{\"limit\":%ld}", &limit) != 1 || limit < 2 || limit > 1000000) {
		fputs("limit must be between 2 and 1000000\n", stderr);
		return 1;
	}
	composite = calloc((size_t)limit + 1, sizeof(*composite));
	if (!composite)
		return 1;
	for (i = 2; i * i <= limit; i++)
		if (!composite[i])
			for (j = i * i; j <= limit; j += i)
				composite[j] = true;
	fputs("{\"primes\":[", stdout);
	for (i = 2; i <= limit; i++)
		if (!composite[i])
			printf("%s%ld", count++ ? "," : "", i);
	printf("],\"count\":%ld}\n", count);
	free(composite);
	return 0;
}
