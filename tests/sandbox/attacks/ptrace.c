/* ptrace is killed. */
#include "attack.h"
#include <sys/ptrace.h>
int main(void)
{
	ptrace(PTRACE_TRACEME, 0, 0, 0);
	puts("survived");
	return 0;
}
