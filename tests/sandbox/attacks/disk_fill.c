/* Fill /tmp with 1 MB files, then one big file; both stop with an errno. */
#include "attack.h"
#include <fcntl.h>
int main(void)
{
	static char buf[1 << 20];
	char name[64];
	int i, fd;
	memset(buf, 'd', sizeof(buf));
	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "/tmp/f%d", i);
		fd = open(name, O_WRONLY | O_CREAT, 0600);
		if (fd < 0) {
			report("create", -1);
			break;
		}
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			report("write", -1);
			close(fd);
			break;
		}
		close(fd);
	}
	printf("files=%d\n", i);
	return 0;
}
