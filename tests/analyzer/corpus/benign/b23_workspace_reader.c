// expect: pass
/* Count the lines of a fixed workspace file (needs workspace:read). */
// capabilities: workspace:read
#include <stdio.h>

int main(void)
{
	char line[512];
	long n = 0;
	FILE *f = fopen("/workspace/README.md", "r");
	if (!f) {
		puts("{\"lines\":null}");
		return 0;
	}
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	printf("{\"lines\":%ld}\n", n);
	return 0;
}
