// expect: pass
/* Copy stdin to a scratch file in /tmp and read it back, counting lines. */
#include <stdio.h>
#include <string.h>

int main(void)
{
	char line[512];
	long n = 0;
	FILE *f = fopen("/tmp/tool_scratch.txt", "w+");

	if (!f) {
		perror("scratch");
		return 1;
	}
	while (fgets(line, sizeof(line), stdin))
		fputs(line, f);
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (strchr(line, '\n'))
			n++;
	fclose(f);
	remove("/tmp/tool_scratch.txt");
	printf("{\"lines\":%ld}\n", n);
	return 0;
}
