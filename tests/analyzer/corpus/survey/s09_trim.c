// expect: pass
/* survey: string trim and lower-case with ctype */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	char s[] = "   Hello World  ";
	char *b = s, *e;
	while (isspace((unsigned char)*b))
		b++;
	e = b + strlen(b);
	while (e > b && isspace((unsigned char)e[-1]))
		*--e = 0;
	for (char *p = b; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	printf("{\"s\":\"%s\"}\n", b);
	return 0;
}
