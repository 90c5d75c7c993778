/* Who and where we are: ids, hostname, the root listing, writability, exec from /tmp. */
#include "attack.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
int main(void)
{
	struct utsname u;
	gid_t groups[8];
	char *names[64];
	int n = 0, i, fd;
	DIR *d = opendir("/");
	struct dirent *e;
	printf("uid=%d euid=%d gid=%d groups=%d\n", getuid(), geteuid(), getgid(), getgroups(8, groups));
	uname(&u);
	printf("hostname=%s\n", u.nodename);
	while (d && (e = readdir(d)) && n < 64)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	qsort(names, (size_t)n, sizeof(char *), cmp);
	printf("root:");
	for (i = 0; i < n; i++)
		printf(" %s", names[i]);
	printf("\n");
	report("create /x", open("/x", O_WRONLY | O_CREAT, 0600));
	report("mkdir /dev/x", mkdir("/dev/x", 0700));
	fd = open("/tmp/copy", O_WRONLY | O_CREAT, 0700);
	report("create /tmp/copy", fd);
	if (fd >= 0) {
		int src = open("/tool", O_RDONLY);
		char buf[65536];
		ssize_t k;
		while (src >= 0 && (k = read(src, buf, sizeof(buf))) > 0)
			(void)!write(fd, buf, (size_t)k);
		close(fd);
		char *argv[] = { "copy", NULL }, *envp[] = { NULL };
		report("exec /tmp/copy", execve("/tmp/copy", argv, envp));
	}
	report("write /dev/null", write(open("/dev/null", O_WRONLY), "x", 1));
	char r[4];
	report("read /dev/urandom", read(open("/dev/urandom", O_RDONLY), r, 4));
	return 0;
}
