/* Copy stdin to stdout, and argv[1] (if any) to stderr; exit with argv[2]. */
#include "attack.h"
int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t k;
	while ((k = read(0, buf, sizeof(buf))) > 0)
		(void)!write(1, buf, (size_t)k);
	if (argc > 1)
		fprintf(stderr, "%s\n", argv[1]);
	return argc > 2 ? atoi(argv[2]) : 0;
}
