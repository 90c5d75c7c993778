// expect: file_access
/* write() on a descriptor that is not a constant (issue 14: the harmless use is allowed, this misuse is not) */
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	(void)argv;
	return (int)write(argc + 2, "x", 1);
}
