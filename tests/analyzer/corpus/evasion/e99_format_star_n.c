// expect: format_n
// finding: format_n: snprintf: the format holds %*n,
/* a width star before n (glibc reads the width, then writes) */
#include <stdio.h>
int main(void)
{
	char buf[16];
	int n = 0;
	snprintf(buf, sizeof(buf), "ab%*n", 3, &n);
	return n;
}
