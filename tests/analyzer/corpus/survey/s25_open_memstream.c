// expect: pass
/* refused before issue 14 -- file_access: open_memstream was listed with the file functions although it opens memory only */
/* survey: build output in memory with open_memstream */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return 1;
	for (int i = 0; i < 3; i++)
		fprintf(f, "%s%d", i ? "," : "[", i);
	fputs("]", f);
	fclose(f);
	printf("%s\n", buf);
	free(buf);
	return 0;
}
