// expect: pass
/* survey: scratch file under /tmp */
#include <stdio.h>
int main(void)
{
	FILE *f = fopen("/tmp/scratch.txt", "w+");
	int v = 0;
	if (!f)
		return 1;
	fprintf(f, "41");
	rewind(f);
	if (fscanf(f, "%d", &v) != 1)
		return 1;
	fclose(f);
	printf("{\"v\":%d}\n", v + 1);
	return 0;
}
