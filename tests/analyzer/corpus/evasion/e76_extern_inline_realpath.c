// expect: file_access
/* Turning on glibc's extern inline fortify wrappers defines realpath in the
 * translation unit; it still links to the library. */
#define __OPTIMIZE__ 1
#define _FORTIFY_SOURCE 2
#define _GNU_SOURCE
#include <stdlib.h>
#include <stdio.h>

int main(void)
{
	char out[4096];
	return puts(realpath("/etc/passwd", out)) < 0;
}
