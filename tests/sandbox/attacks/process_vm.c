/* process_vm_readv is killed. */
#include "attack.h"
#include <sys/uio.h>
int main(void)
{
	char buf[8];
	struct iovec l = { buf, sizeof(buf) }, r = { buf, sizeof(buf) };
	process_vm_readv(1, &l, 1, &r, 1, 0);
	puts("survived");
	return 0;
}
