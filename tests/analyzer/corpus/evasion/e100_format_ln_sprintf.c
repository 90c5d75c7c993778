// expect: format_n
// finding: format_n: sprintf: the format holds %ln,
/* a long-sized %n through sprintf (fortified as __builtin___sprintf_chk) */
#include <stdio.h>
int main(void)
{
	char buf[16];
	long n = 0;
	sprintf(buf, "abc%ln", &n);
	return (int)n;
}
