// expect: process file_access environment
/* unistd.h is allowed, its other functions are not (issue 14: the harmless use is allowed, this misuse is not) */
#include <unistd.h>
int main(void)
{
	if (fork() == 0)
		return close(0);
	return (int)getpid();
}
