// expect: format_n
// finding: format_n: swprintf: the format holds %zn,
/* a size_t-sized %n in a wide literal */
#include <stddef.h>
#include <wchar.h>
int main(void)
{
	wchar_t buf[16];
	size_t n = 0;
	swprintf(buf, 16, L"ab" L"%zn", &n);
	return (int)n;
}
