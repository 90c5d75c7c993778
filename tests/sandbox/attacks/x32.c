/* An x32 syscall number (getpid | 0x40000000) is killed. */
#include "attack.h"
int main(void)
{
	syscall(0x40000000 | SYS_getpid);
	puts("survived");
	return 0;
}
