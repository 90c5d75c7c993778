/* One denied syscall, named by argv[1]; each must kill the whole process. */
#include "attack.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";
	char attr[128] = { 0 };
	if (!strcmp(w, "userfaultfd"))
		syscall(SYS_userfaultfd, 0);
	else if (!strcmp(w, "bpf"))
		syscall(SYS_bpf, 0, attr, sizeof(attr));
	else if (!strcmp(w, "perf_event_open"))
		syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
	else if (!strcmp(w, "keyctl"))
		syscall(SYS_keyctl, 0, 0, 0, 0, 0);
	else if (!strcmp(w, "add_key"))
		syscall(SYS_add_key, "user", "k", "v", 1, -3);
	else if (!strcmp(w, "unshare"))
		unshare(CLONE_NEWUSER);
	else if (!strcmp(w, "setns"))
		setns(0, 0);
	else if (!strcmp(w, "mount"))
		mount("none", "/tmp", "tmpfs", 0, NULL);
	else if (!strcmp(w, "umount2"))
		umount2("/tmp", MNT_DETACH);
	else if (!strcmp(w, "pivot_root"))
		syscall(SYS_pivot_root, "/tmp", "/tmp");
	else if (!strcmp(w, "fsopen"))
		syscall(430, "tmpfs", 0);
	else if (!strcmp(w, "open_tree"))
		syscall(428, AT_FDCWD, "/", 1);
	else if (!strcmp(w, "move_mount"))
		syscall(429, -1, "", AT_FDCWD, "/tmp", 4);
	else if (!strcmp(w, "personality"))
		syscall(SYS_personality, 0x0400000 /* READ_IMPLIES_EXEC */);
	else if (!strcmp(w, "prctl"))
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	else if (!strcmp(w, "chroot"))
		chroot("/tmp");
	else if (!strcmp(w, "memfd_create"))
		syscall(SYS_memfd_create, "x", 0);
	else if (!strcmp(w, "execveat"))
		syscall(SYS_execveat, open("/tool", O_RDONLY), "", NULL, NULL, 0x1000);
	else if (!strcmp(w, "execveat_fd5")) {
		/* the form a pooled child's filter allows, on a file of ours */
		int fd = open("/dev/null", O_RDONLY);
		while (fd >= 0 && fd < 5)
			fd = open("/dev/null", O_RDONLY);
		if (fd != 5)
			return 9;
		report("execveat fd 5", (int)syscall(SYS_execveat, 5, "", NULL, NULL, 0x1000));
		return 0;
	} else if (!strcmp(w, "recvmsg_fd4")) {
		/* the form a pooled child's filter allows (it receives its run
		 * that way): fd 4 is closed after exec, and whatever the tool
		 * puts there is no socket of its own */
		char b[16], cb[64];
		struct iovec io = { b, sizeof(b) };
		struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cb,
				     .msg_controllen = sizeof(cb) };
		int fd = 0;
		report("recvmsg fd 4", (long)syscall(SYS_recvmsg, 4, &mh, 0x40000000 /* CMSG_CLOEXEC */));
		while (fd >= 0 && fd < 4)
			fd = open("/dev/null", O_RDONLY);
		if (fd != 4)
			return 9;
		report("recvmsg fd 4", (long)syscall(SYS_recvmsg, 4, &mh, 0x40000000));
		return 0;
	} else if (!strcmp(w, "recvmsg_peek")) {
		/* any other flags: denied, pooled or not */
		char b[16];
		struct iovec io = { b, sizeof(b) };
		struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1 };
		syscall(SYS_recvmsg, 4, &mh, 2 /* MSG_PEEK */);
	} else if (!strcmp(w, "pkey_alloc"))
		syscall(SYS_pkey_alloc, 0, 0);
	else if (!strcmp(w, "capget"))
		syscall(SYS_capget, attr, attr + 16);
	else if (!strcmp(w, "setuid"))
		syscall(SYS_setuid, 0);
	else if (!strcmp(w, "mmap_rwx"))
		mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else if (!strcmp(w, "mprotect_rwx")) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
	} else if (!strcmp(w, "fcntl_lock")) {
		struct flock fl = { .l_type = F_WRLCK };
		fcntl(1, F_SETLK, &fl);
	} else if (!strcmp(w, "getrusage_children"))
		syscall(SYS_getrusage, -1 /* RUSAGE_CHILDREN */, attr);
	else if (!strcmp(w, "prlimit_set"))
		syscall(SYS_prlimit64, 0, 7, attr, NULL);
	else
		return 2;
	puts("survived");
	return 0;
}
