// expect: format_string
// finding: format_string: printf: the format must be a string literal
/* the input as the format: %n (or %s on garbage) at run time */
#include <stdio.h>
int main(void)
{
	char line[256];
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	printf(line);
	return 0;
}
