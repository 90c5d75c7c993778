/* io_uring_setup fails cleanly with ENOSYS. */
#include "attack.h"
int main(void)
{
	char params[120] = { 0 };
	report("io_uring_setup", syscall(425, 8, params));
	return 0;
}
