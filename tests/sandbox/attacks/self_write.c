/* runc CVE-2019-5736 style: overwrite our own binary, via /proc/self/exe and directly. */
#include "attack.h"
#include <fcntl.h>
int main(void)
{
	report("open /proc/self/exe", open("/proc/self/exe", O_WRONLY));
	report("open /tool", open("/tool", O_WRONLY));
	report("open /tool O_RDWR", open("/tool", O_RDWR));
	report("unlink /tool", unlink("/tool"));
	report("rename /tool", rename("/tool", "/tmp/t"));
	return 0;
}
