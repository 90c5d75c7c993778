/* A unix socket at a host path (argv[1]), or in the abstract namespace (argv[2] = "abstract"). */
#include "attack.h"
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len;
	int abstract = argc > 2 && strcmp(argv[2], "abstract") == 0;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	report("socket", s);
	if (s < 0 || argc < 2)
		return 0;
	strncpy(a.sun_path + abstract, argv[1], sizeof(a.sun_path) - 2);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract + strlen(argv[1]) + !abstract);
	report("connect", connect(s, (struct sockaddr *)&a, len));
	return 0;
}
