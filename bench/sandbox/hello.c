/* bench/sandbox/hello.c: the program every sandbox in the benchmark runs. */
#include <stdio.h>

int main(void)
{
	puts("hello");
	return 0;
}
