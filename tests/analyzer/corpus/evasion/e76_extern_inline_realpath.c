// expect: file_access
/* The analysis uses the build's -O2 -D_FORTIFY_SOURCE=2, so glibc defines a
 * fortify wrapper for realpath in the translation unit; it still links to
 * the library and is checked as such. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <stdio.h>

int main(void)
{
	char out[4096];
	return puts(realpath("/etc/passwd", out)) < 0;
}
