// expect: pass
/* survey: sort numbers with qsort */
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
int main(void)
{
	int v[] = { 5, 3, 9, 1, 7 };
	qsort(v, 5, sizeof(v[0]), cmp);
	printf("[%d,%d,%d,%d,%d]\n", v[0], v[1], v[2], v[3], v[4]);
	return 0;
}
