/* socketpair and raw/packet/netlink/vsock sockets all get EACCES. */
#include "attack.h"
#include <sys/socket.h>
int main(void)
{
	int sv[2];
	report("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	report("netlink", socket(AF_NETLINK, SOCK_RAW, 0));
	report("packet", socket(AF_PACKET, SOCK_RAW, 0));
	report("vsock", socket(40 /* AF_VSOCK */, SOCK_STREAM, 0));
	return 0;
}
