// expect: pass
// output: mid
// GNU case ranges
#include <stdio.h>
int main(void)
{
	int x = 5;
	switch (x) {
	case 1 ... 3: puts("low"); break;
	case 4 ... 6: puts("mid"); break;
	default: puts("high");
	}
	return 0;
}
