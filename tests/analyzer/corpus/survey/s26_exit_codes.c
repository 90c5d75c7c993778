// expect: pass
/* refused before issue 14 -- reserved_identifier: _Exit (a standard function) was taken for a compiler-reserved name */
/* survey: _Exit and EXIT_FAILURE */
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	if (fputs("{}\n", stdout) < 0)
		_Exit(EXIT_FAILURE);
	fflush(stdout);
	_Exit(EXIT_SUCCESS);
}
