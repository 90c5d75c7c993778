// expect: pass
/* survey: CSV column sum from stdin */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	char line[1024];
	double sum = 0;
	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *tok = strtok_r(line, ",", &save);
		int col = 0;
		while (tok) {
			if (col++ == 1)
				sum += strtod(tok, NULL);
			tok = strtok_r(NULL, ",", &save);
		}
	}
	printf("{\"sum\":%.6g}\n", sum);
	return 0;
}
