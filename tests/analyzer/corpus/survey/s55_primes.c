// expect: pass
/* survey: sieve of Eratosthenes with calloc */
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	int n = 100, count = 0;
	char *comp = calloc((size_t)n + 1, 1);
	if (!comp)
		return 1;
	for (int i = 2; i <= n; i++) {
		if (comp[i])
			continue;
		count++;
		for (int j = i * i; j <= n; j += i)
			comp[j] = 1;
	}
	free(comp);
	printf("{\"primes\":%d}\n", count);
	return 0;
}
