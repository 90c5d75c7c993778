// expect: format_n
// finding: format_n: printf: the format holds %hhn,
/* the conversion assembled from macros and concatenated literals */
#include <stdio.h>
#define PCT "%"
#define LEN "hh"
#define FMT PCT LEN "n"
int main(void)
{
	signed char c = 0;
	printf("x" FMT "\n", &c);
	return c;
}
