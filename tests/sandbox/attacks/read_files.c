/* Host files: /etc/passwd, /etc/shadow, /proc, /sys, and argv[1] (a file of the project tree). */
#include "attack.h"
#include <fcntl.h>
int main(int argc, char **argv)
{
	report("/etc/passwd", open("/etc/passwd", O_RDONLY));
	report("/etc/shadow", open("/etc/shadow", O_RDONLY));
	report("/proc/self/status", open("/proc/self/status", O_RDONLY));
	report("/sys/kernel", open("/sys/kernel", O_RDONLY));
	report("/home", open("/home", O_RDONLY));
	if (argc > 1)
		report("project", open(argv[1], O_RDONLY));
	return 0;
}
