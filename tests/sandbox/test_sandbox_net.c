/*
 * tests/sandbox/test_sandbox_net.c: the network attacks of sandbox_attacks
 * (main() is in test_sandbox.c). TCP and UDP to a listener on the host's
 * 127.0.0.1, a unix socket at a host path, an abstract socket, the spare
 * net namespaces made ahead by tg_sandbox_prepare, the namespace shared
 * by filtered runs under it (two runs at once cannot reach each other),
 * and the other socket families. Each attack also runs with seccomp off where the namespace
 * alone must hold, and the host's listener must receive nothing.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <signal.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"
#include "sbx_attacks.h"

/* socket() refused: EACCES by the native filter; EPERM under gVisor (runsc
 * applies the OCI rule with EPERM, not its errnoRet). A run "as if seccomp
 * missed socket()" (SBX_TEST_NO_SECCOMP) is native only: gVisor's OCI rule
 * stays, so there the answer is the refusal again. */
#define NET_REFUSED (sbx_gvisor_on ? "socket: EPERM\n" : "socket: EACCES\n")
#define NO_FILTER(native) (sbx_gvisor_on ? "socket: EPERM\n" : (native))

static int listener(int type, struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int s = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)a, sizeof(*a)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(s, 8), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)a, &len), 0);
	return s;
}

static void assert_nothing_received(int s, int stream)
{
	char buf[16];
	if (stream)
		assert_int_equal(accept(s, NULL, NULL), -1);
	else
		assert_int_equal(recv(s, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(s);
}

void sandbox_net_tcp(void **state)
{
	struct sockaddr_in a;
	char port[16];
	int s = listener(SOCK_STREAM, &a);

	(void)state;
	snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	expect_exit(run_attack(0, 0, "net_tcp", port, NULL), 0, NET_REFUSED);
	/* as if seccomp missed socket(): the empty net namespace has no route */
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_tcp", port, NULL), 0,
		    NO_FILTER("socket: ok\nconnect: ENETUNREACH\n"));
	assert_nothing_received(s, 1);
}

void sandbox_net_udp(void **state)
{
	struct sockaddr_in a;
	char port[16];
	int s = listener(SOCK_DGRAM, &a);

	(void)state;
	snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	expect_exit(run_attack(0, 0, "net_udp", port, NULL), 0, NET_REFUSED);
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_udp", port, NULL), 0,
		    NO_FILTER("socket: ok\nsendto: ENETUNREACH\n"));
	assert_nothing_received(s, 0);
}

static int unix_listener(const char *name, int abstract)
{
	struct sockaddr_un a;
	socklen_t len;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strncpy(a.sun_path + abstract, name, sizeof(a.sun_path) - 2);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract + strlen(name) + !abstract);
	if (!abstract)
		unlink(name);
	assert_int_equal(bind(s, (struct sockaddr *)&a, len), 0);
	chmod(name, 0777);
	assert_int_equal(listen(s, 8), 0);
	return s;
}

void sandbox_net_unix(void **state)
{
	char path[128];
	int s;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/tg-sbx-test-%d.sock", (int)getpid());
	s = unix_listener(path, 0);
	expect_exit(run_attack(0, 0, "net_unix", path, NULL), 0, NET_REFUSED);
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_unix", path, NULL), 0,
		    NO_FILTER("socket: ok\nconnect: ENOENT\n"));
	assert_nothing_received(s, 1);
	unlink(path);
}

void sandbox_net_abstract(void **state)
{
	char name[64];
	int s;

	(void)state;
	snprintf(name, sizeof(name), "tg-sbx-test-%d", (int)getpid());
	s = unix_listener(name, 1);
	expect_exit(run_attack(0, 0, "net_unix", name, "abstract", NULL), 0, NET_REFUSED);
	/* abstract sockets belong to the net namespace: the host's is not reachable */
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_unix", name, "abstract", NULL), 0,
		    NO_FILTER("socket: ok\nconnect: ECONNREFUSED\n"));
	assert_nothing_received(s, 1);
}

/* Wait (up to 3 s) for the spare net namespace; its inode, 0 if none. */
static unsigned long wait_spare(void)
{
	int i;

	for (i = 0; i < 300; i++) {
		unsigned long ino = sbx_net_spare_ino();
		if (ino)
			return ino;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	return 0;
}

/* A descriptor of our own that keeps the net namespace `ino` alive (its
 * inode number cannot be handed out again while we hold it): a second
 * open of the spare's descriptor, found in /proc/self/fd. */
static int hold_net(unsigned long ino)
{
	char want[64], link[64], path[300];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int fd = -1;
	ssize_t n;

	assert_non_null(d);
	snprintf(want, sizeof(want), "net:[%lu]", ino);
	while (fd < 0 && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, want) == 0)
			fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	closedir(d);
	assert_true(fd >= 0);
	return fd;
}

/* tg_sandbox_prepare (the MCP server): once a run without the filter came
 * (it may not share: sandbox_net_shared), each later one takes the spare
 * made ahead, a different one each time, and the network is as closed as
 * with one made on the spot (the same attacks, seccomp off). */
void sandbox_net_prepared(void **state)
{
	struct sockaddr_in a;
	char port[16], name[64];
	unsigned long n1, n2;
	int s, u, h1, pooled;

	(void)state;
	SBX_NATIVE_ONLY("spare net namespaces (tg_sandbox_prepare) serve native runs");
	if (geteuid() != 0) {
		skip(); /* spares need CAP_SYS_ADMIN */
		return;
	}
	s = listener(SOCK_STREAM, &a);
	snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	snprintf(name, sizeof(name), "tg-sbx-prep-%d", (int)getpid());
	u = unix_listener(name, 1);
	/* spares serve the ordinary path; pooled entries would take them */
	pooled = sbx_pool_on;
	sbx_pool_on = 0;
	tg_sandbox_pool_stop();
	tg_sandbox_prepare(1);
	assert_true(sbx_net_spare_ino() == 0); /* none until one is wanted */
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_tcp", port, NULL), 0,
		    "socket: ok\nconnect: ENETUNREACH\n");
	n1 = wait_spare();
	assert_true(n1 != 0);
	h1 = hold_net(n1); /* so that the next spare cannot get its number */
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_tcp", port, NULL), 0,
		    NO_FILTER("socket: ok\nconnect: ENETUNREACH\n"));
	assert_true(sbx_net_last_ino() == n1);
	n2 = wait_spare();
	assert_true(n2 != 0 && n2 != n1);
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_unix", name, "abstract", NULL), 0,
		    NO_FILTER("socket: ok\nconnect: ECONNREFUSED\n"));
	assert_true(sbx_net_last_ino() == n2);
	assert_nothing_received(s, 1);
	assert_nothing_received(u, 1);
	close(h1);
	tg_sandbox_prepare(0);
	assert_true(sbx_net_spare_ino() == 0);
	/* without a spare, runs make their own again */
	expect_exit(run_attack(0, 0, "net_tcp", port, NULL), 0, NET_REFUSED);
	assert_true(sbx_net_spare_ino() == 0);
	if (pooled)
		assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
	sbx_pool_on = pooled;
}

/* tg_sandbox_prepare: filtered runs enter one namespace, made by the first
 * and kept; two of them at once cannot reach each other through it or
 * otherwise (every socket call denied, no /proc, their own /tmp, their own
 * pid namespace), and an unfiltered run never gets it. */
void sandbox_net_shared(void **state)
{
	tg_run_result *ra, *rb;
	unsigned long shared, shared_ipc, spare;
	int pooled;

	(void)state;
	SBX_NATIVE_ONLY("the shared empty net namespace (tg_sandbox_prepare) serves native runs");
	if (geteuid() != 0) {
		skip(); /* the supervisor makes namespaces itself as root only */
		return;
	}
	pooled = sbx_pool_on;
	sbx_pool_on = 0;
	tg_sandbox_pool_stop();
	tg_sandbox_prepare(1);
	assert_true(sbx_net_shared_ino() == 0);
	expect_exit(run_attack(0, 0, "net_tcp", "1", NULL), 0, "socket: EACCES\n");
	shared = sbx_net_shared_ino();
	assert_true(shared != 0);
	assert_true(sbx_net_last_ino() == shared);
	/* the ipc namespace made with it, and entered by the run */
	shared_ipc = sbx_net_shared_ipc_ino();
	assert_true(shared_ipc != 0);
	assert_true(sbx_net_last_ipc_ino() == shared_ipc);

	sbx_run_pair(ATTACK("shared_probe"), "shared_probe", NULL, &ra, &rb);
	expect_exit(ra, 0,
		    "socket: EACCES\nsocketpair: EACCES\nmark: ok\ntmp_others: 0\nproc: ENOENT\n"
		    "kill_all: ESRCH\nkill_2: ESRCH\n");
	expect_exit(rb, 0,
		    "socket: EACCES\nsocketpair: EACCES\nmark: ok\ntmp_others: 0\nproc: ENOENT\n"
		    "kill_all: ESRCH\nkill_2: ESRCH\n");
	assert_true(sbx_net_shared_ino() == shared);
	assert_true(sbx_net_last_ino() == shared);
	assert_true(sbx_net_shared_ipc_ino() == shared_ipc);
	assert_true(sbx_net_last_ipc_ino() == shared_ipc);

	/* without the filter a run could make sockets: never the shared one
	 * (the first makes its own, the next takes a spare made for it) */
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_tcp", "1", NULL), 0,
		    "socket: ok\nconnect: ENETUNREACH\n");
	spare = wait_spare();
	assert_true(spare != 0 && spare != shared);
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_tcp", "1", NULL), 0,
		    "socket: ok\nconnect: ENETUNREACH\n");
	assert_true(sbx_net_last_ino() == spare);
	assert_true(sbx_net_shared_ino() == shared);
	tg_sandbox_prepare(0);
	assert_true(sbx_net_shared_ino() == 0);
	assert_true(sbx_net_shared_ipc_ino() == 0);
	/* not prepared: a run makes its own again */
	expect_exit(run_attack(0, 0, "net_tcp", "1", NULL), 0, "socket: EACCES\n");
	assert_true(sbx_net_shared_ino() == 0);
	if (pooled)
		assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
	sbx_pool_on = pooled;
}

void sandbox_net_other_families(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 0, "socketpair", NULL), 0,
		    sbx_gvisor_on ? "socketpair: EPERM\nnetlink: EPERM\npacket: EPERM\nvsock: EPERM\n"
				  : "socketpair: EACCES\nnetlink: EACCES\npacket: EACCES\nvsock: EACCES\n");
}
