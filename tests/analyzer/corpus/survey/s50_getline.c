// expect: pass
/* refused before issue 14 -- object check not_allowed: getline links as __getdelim with -O2, which was not mapped to getdelim */
/* survey: read lines with getline */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	long lines = 0;
	while (getline(&line, &cap, stdin) > 0)
		lines++;
	free(line);
	printf("{\"lines\":%ld}\n", lines);
	return 0;
}
