// expect: pass
/* Multiply two 3x3 matrices given on stdin (18 numbers). */
#include <stdio.h>

int main(void)
{
	double a[3][3], b[3][3], c[3][3] = { { 0 } };
	int i, j, k;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			if (scanf("%lf", &a[i][j]) != 1)
				return 1;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			if (scanf("%lf", &b[i][j]) != 1)
				return 1;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			for (k = 0; k < 3; k++)
				c[i][j] += a[i][k] * b[k][j];
	putchar('[');
	for (i = 0; i < 3; i++)
		printf("%s[%g,%g,%g]", i ? "," : "", c[i][0], c[i][1], c[i][2]);
	puts("]");
	return 0;
}
