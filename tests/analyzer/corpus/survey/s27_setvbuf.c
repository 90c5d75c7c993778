// expect: pass
/* refused before issue 14 -- reserved_identifier: _IOLBF (a standard macro) was taken for a compiler-reserved name */
/* survey: line buffering with setvbuf and _IOLBF */
#include <stdio.h>
int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	puts("{\"ok\":true}");
	return 0;
}
