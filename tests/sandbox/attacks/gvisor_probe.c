/* What a run can see of its kernel and root (test_gvisor.c): "uname"
 * prints the five uname fields; "ls" lists /, /dev, /tmp, /proc and /sys,
 * one "dir/name" a line (sorted by the test); "socket" tries an INET, a
 * UNIX and an INET6 socket and a TCP connect to 1.1.1.1:80; "alloc"
 * touches 1 MB after another, printing the running total ("mb=N") each time,
 * until it is killed or malloc fails. */
#include "attack.h"
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/utsname.h>

static void list(const char *d)
{
	DIR *x = opendir(d);
	struct dirent *e;

	if (!x) {
		report(d, -1);
		return;
	}
	while ((e = readdir(x)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			printf("%s/%s\n", strcmp(d, "/") ? d : "", e->d_name);
	closedir(x);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "uname")) {
		struct utsname u;
		report("uname", uname(&u));
		printf("%s|%s|%s|%s|%s\n", u.sysname, u.nodename, u.release, u.version, u.machine);
	} else if (!strcmp(m, "ls")) {
		list("/");
		list("/dev");
		list("/tmp");
		list("/proc");
		list("/sys");
	} else if (!strcmp(m, "alloc")) {
		int mb = 0;
		char *p;
		while ((p = malloc(1 << 20))) {
			memset(p, 1, 1 << 20);
			printf("mb=%d\n", ++mb);
			fflush(stdout);
		}
		puts("malloc failed");
	} else if (!strcmp(m, "socket")) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(80),
					 .sin_addr.s_addr = htonl(0x01010101) };
		int s = socket(AF_INET, SOCK_STREAM, 0);
		report("inet", s);
		report("unix", socket(AF_UNIX, SOCK_STREAM, 0));
		report("inet6", socket(AF_INET6, SOCK_DGRAM, 0));
		report("connect", s < 0 ? (errno = EBADF, -1) : connect(s, (void *)&a, sizeof(a)));
	}
	return 0;
}
