/* A bridged tool (fd 3) trying for more connections. It says "ping" on fd 3
 * and prints what comes back, then tries socket (unix and inet),
 * socketpair and fd 4; with argv[1] "connect" it calls connect on fd 3
 * (killed), with "sendmsg" sendmsg on fd 3 (killed), else it ends. */
#include "attack.h"
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = "/bridge.sock" };
	char buf[16] = "";
	int sv[2];
	ssize_t k;

	report("ping", write(3, "ping\n", 5) == 5 ? 0 : -1);
	k = read(3, buf, sizeof(buf) - 1);
	printf("got=%.*s", k > 0 ? (int)k : 0, buf);
	report("unix", socket(AF_UNIX, SOCK_STREAM, 0));
	report("inet", socket(AF_INET, SOCK_STREAM, 0));
	report("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	report("fd4", fcntl(4, F_GETFD));
	if (argc > 1 && strcmp(argv[1], "connect") == 0)
		report("connect", connect(3, (struct sockaddr *)&a, sizeof(a)));
	if (argc > 1 && strcmp(argv[1], "sendmsg") == 0) {
		struct msghdr m = { 0 };
		report("sendmsg", sendmsg(3, &m, 0));
	}
	return 0;
}
