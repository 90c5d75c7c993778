// expect: pass
/* survey: strerror and perror on a failed conversion */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	errno = 0;
	strtoul("99999999999999999999999", NULL, 10);
	printf("{\"err\":\"%s\"}\n", errno ? strerror(errno) : "none");
	return 0;
}
