// expect: pass
/* Trim and upper-case every line, with a small state machine. */
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include <stddef.h>

static char *trim(char *s)
{
	char *end;
	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = 0;
	return s;
}

int main(void)
{
	char line[1024];
	size_t count = 0;

	fputs("[", stdout);
	while (fgets(line, sizeof(line), stdin)) {
		char *t = trim(line), *q;
		for (q = t; *q; q++)
			*q = (char)toupper((unsigned char)*q);
		printf("%s\"%s\"", count++ ? "," : "", t);
	}
	puts("]");
	return 0;
}
