// expect: file_access
/* read() is allowed on stdin only: fd 3 is the tool bridge (issue 14: the harmless use is allowed, this misuse is not) */
#include <unistd.h>
int main(void)
{
	char b[64];
	return (int)read(3, b, sizeof(b));
}
