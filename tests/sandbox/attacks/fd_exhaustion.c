/* Open until refused. */
#include "attack.h"
#include <fcntl.h>
int main(void)
{
	int n = 0;
	while (n < 100000 && open("/dev/null", O_RDONLY) >= 0)
		n++;
	report("open", -1);
	printf("opened=%d\n", n);
	return 0;
}
