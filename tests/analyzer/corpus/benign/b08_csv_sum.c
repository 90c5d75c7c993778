// expect: pass
/* Sum each column of a CSV of numbers on stdin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 32

int main(void)
{
	char line[4096];
	double sums[MAX_COLS] = { 0 };
	int ncols = 0, i;

	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *tok;
		int col = 0;
		for (tok = strtok_r(line, ",\n", &save); tok && col < MAX_COLS;
		     tok = strtok_r(NULL, ",\n", &save))
			sums[col++] += strtod(tok, NULL);
		if (col > ncols)
			ncols = col;
	}
	putchar('[');
	for (i = 0; i < ncols; i++)
		printf("%s%g", i ? "," : "", sums[i]);
	puts("]");
	return 0;
}
