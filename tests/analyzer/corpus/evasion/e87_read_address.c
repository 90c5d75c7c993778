// expect: file_access indirect_call
/* read() through a pointer: its descriptor cannot be checked (issue 14: the harmless use is allowed, this misuse is not) */
#include <unistd.h>
int main(void)
{
	ssize_t (*r)(int, void *, size_t) = read;
	char b[8];
	return (int)r(5, b, 8);
}
