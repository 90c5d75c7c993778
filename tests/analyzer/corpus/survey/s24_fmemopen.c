// expect: pass
/* refused before issue 14 -- file_access: fmemopen was listed with the file functions although it opens memory only */
/* survey: parse a string with fmemopen + fscanf */
#define _GNU_SOURCE
#include <stdio.h>
int main(void)
{
	char text[] = "3 4 5";
	int a, b, c;
	FILE *f = fmemopen(text, sizeof(text) - 1, "r");
	if (!f || fscanf(f, "%d %d %d", &a, &b, &c) != 3)
		return 1;
	fclose(f);
	printf("{\"sum\":%d}\n", a + b + c);
	return 0;
}
