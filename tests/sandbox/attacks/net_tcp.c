/* TCP to a listener on the host's 127.0.0.1:argv[1]. */
#include "attack.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_STREAM, 0);
	report("socket", s);
	if (s < 0 || argc < 2)
		return 0;
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	report("connect", connect(s, (struct sockaddr *)&a, sizeof(a)));
	return 0;
}
