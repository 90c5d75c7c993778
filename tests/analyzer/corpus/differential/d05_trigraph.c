// expect: trigraph
// trigraphs are replaced in c11 and ignored in gnu11: ??/ would splice the next line
#include <stdio.h>
int main(void)
{
	// ??/
	puts("two");
	return 0;
}
