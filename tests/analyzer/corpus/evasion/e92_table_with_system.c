// expect: process
/* a const table may only name allowed functions (issue 14: the harmless use is allowed, this misuse is not) */
#include <stdlib.h>
static const struct { const char *name; int (*fn)(const char *); } cmds[] = { { "run", system } };
int main(void)
{
	return cmds[0].fn("id");
}
