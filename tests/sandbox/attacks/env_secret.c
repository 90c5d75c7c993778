/* The environment is empty: no secret of the parent leaks. */
#include "attack.h"
extern char **environ;
int main(void)
{
	int n = 0, leak = 0;
	for (char **e = environ; e && *e; e++, n++)
		if (strstr(*e, "TG_SECRET"))
			leak = 1;
	printf("env=%d leak=%d\n", n, leak);
	return 0;
}
