/* TIOCSTI with high bits set (CVE-2019-10063 style), argv[1] = "plain" for the plain number. */
#include "attack.h"
#include <sys/ioctl.h>
int main(int argc, char **argv)
{
	char c = 'x';
	unsigned long req = TIOCSTI;
	if (argc < 2 || strcmp(argv[1], "plain") != 0)
		req |= 1UL << 32;
	syscall(SYS_ioctl, 0, req, &c);
	puts("survived");
	return 0;
}
