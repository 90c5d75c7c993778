/* The i386 entry point (int 0x80, getpid = 20) is killed. */
#include "attack.h"
int main(void)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	printf("survived %ld\n", r);
	return 0;
}
