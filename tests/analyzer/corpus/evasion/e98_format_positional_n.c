// expect: format_n
// finding: format_n: fprintf: the format holds %1$n,
/* a positional %n, after the argument it names is printed */
#include <stdio.h>
int main(void)
{
	int n = 0;
	fprintf(stderr, "%2$s%1$n\n", &n, "abc");
	return n;
}
