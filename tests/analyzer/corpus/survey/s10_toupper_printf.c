// expect: pass
/* refused before issue 14 -- stmt_expr: glibc's toupper macro inside the fortified printf macro was taken for a statement expression the tool wrote */
/* survey: ctype macro inside printf (fortified) */
#include <ctype.h>
#include <stdio.h>
int main(void)
{
	const char *s = "abc";
	for (int i = 0; s[i]; i++)
		printf("%c", toupper((unsigned char)s[i]));
	printf("\n");
	return 0;
}
