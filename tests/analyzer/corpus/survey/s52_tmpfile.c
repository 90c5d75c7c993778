// expect: pass
/* survey: anonymous scratch with tmpfile */
#include <stdio.h>
int main(void)
{
	FILE *f = tmpfile();
	char buf[8] = "";
	if (!f)
		return 1;
	fputs("hi", f);
	rewind(f);
	if (!fgets(buf, sizeof(buf), f))
		return 1;
	fclose(f);
	printf("{\"s\":\"%s\"}\n", buf);
	return 0;
}
