// expect: pass
/* Read integers from stdin, print them sorted as a JSON array. */
#include <stdio.h>
#include <stdlib.h>

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	size_t n = 0, cap = 16, i;
	long *v = malloc(cap * sizeof(*v));
	long x;

	if (!v)
		return 1;
	while (scanf("%ld", &x) == 1) {
		if (n == cap) {
			long *nv = realloc(v, 2 * cap * sizeof(*v));
			if (!nv) {
				free(v);
				return 1;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = x;
	}
	qsort(v, n, sizeof(*v), cmp_long);
	putchar('[');
	for (i = 0; i < n; i++)
		printf("%s%ld", i ? "," : "", v[i]);
	puts("]");
	free(v);
	return 0;
}
