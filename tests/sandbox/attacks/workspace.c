/* The workspace folder: read /workspace/in.txt, try to write /workspace/out.txt. */
#include "attack.h"
#include <fcntl.h>
int main(void)
{
	char buf[64] = { 0 };
	int fd = open("/workspace/in.txt", O_RDONLY);
	report("read", fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1));
	printf("in=%s\n", buf);
	fd = open("/workspace/out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	report("write", fd < 0 ? -1 : write(fd, "out", 3));
	return 0;
}
