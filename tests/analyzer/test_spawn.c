/*
 * tests/analyzer/test_spawn.c: the parse child as a fresh image (analyzer/
 * child.c). This program calls tg_analyze_main() as toolgate does, so each
 * analysis starts a new image of it. Asserted on the live child: it runs the
 * parse-child entry, with none of the caller's mappings (a memfd the caller
 * maps stands for a server's secrets) and an empty environment; analyses
 * beside threads that allocate and start threads all finish with their
 * verdict (a fork of this process could copy a lock another thread held, as
 * ASan's allocator has no fork handlers, and wait on it forever); and the
 * entry refuses to run without its descriptors or with a garbled job. And
 * the parse filter it runs under (sandbox/filter.c, PARSE): the parse's own
 * calls pass; opening for writing, creating, unlinking, a socket, exec,
 * fork, kill and an executable mapping are each killed with SIGSYS.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyzer/analyzer.h"
#include "sandbox/sandbox.h"
#include "parse_child.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define CHILD_ARG TG_TEST_CHILD_ARG

static const char rejected[] = "#include <stdlib.h>\nint main(void) { return system(\"x\"); }\n";
static const char accepted[] = "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n";

static tg_report *analyze(const char *src, uint32_t timeout_ms)
{
	tg_analyze_opts o = { 0 };
	tg_report *r = NULL;
	o.timeout_ms = timeout_ms;
	assert_int_equal(tg_analyze(&r, NULL, "t.c", src, strlen(src), &o), 0);
	assert_non_null(r);
	return r;
}

struct observer {
	pthread_t t;
	int seen;          /* the parse child was found and stopped */
	int has_marker;    /* its maps name the caller's memfd */
	size_t environ_len;
	int same_exe;
	int seccomp;       /* Seccomp: 2 (a filter) */
	int nnp;           /* NoNewPrivs: 1 */
};

static void *observer_main(void *arg)
{
	struct observer *o = arg;
	struct timespec ms = { 0, 1000000 };
	char path[64], self[512], exe[512];
	static char maps[1 << 20];
	pid_t pid = 0;
	int i;
	for (i = 0; i < 5000 && !pid; i++) {
		pid = tg_test_find_parse_child(1);
		if (!pid)
			nanosleep(&ms, NULL);
	}
	/* the filter comes once libclang is loaded: wait for it (up to 5 s) */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (i = 0; pid && i < 5000 && !o->seccomp; i++) {
		size_t n = tg_test_read_small(path, maps, sizeof(maps) - 1);
		maps[n] = '\0';
		o->seccomp = strstr(maps, "\nSeccomp:\t2\n") != NULL;
		o->nnp = strstr(maps, "\nNoNewPrivs:\t1\n") != NULL;
		if (!o->seccomp)
			nanosleep(&ms, NULL);
	}
	if (!pid || kill(pid, SIGSTOP) != 0)
		return NULL;
	o->seen = 1;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps[tg_test_read_small(path, maps, sizeof(maps) - 1)] = '\0';
	o->has_marker = strstr(maps, "tg-parent-marker") != NULL;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	o->environ_len = tg_test_read_small(path, self, sizeof(self));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t a = readlink(path, exe, sizeof(exe) - 1), b = readlink("/proc/self/exe", self, sizeof(self) - 1);
	o->same_exe = a > 0 && a == b && memcmp(exe, self, (size_t)a) == 0;
	kill(pid, SIGCONT);
	return NULL;
}

/* The child holds none of the caller's memory or environment, and parses
 * under the parse filter with no_new_privs. */
static void test_fresh_image(void **state)
{
	struct observer o = { 0 };
	int mfd = memfd_create("tg-parent-marker", MFD_CLOEXEC);
	void *m;
	tg_report *r;
	(void)state;
	assert_true(mfd >= 0);
	assert_int_equal(ftruncate(mfd, 4096), 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	assert_true(m != MAP_FAILED);
	memcpy(m, "a server's secret", 18);
	assert_int_equal(setenv("TG_PARENT_MARKER", "1", 1), 0);
	assert_int_equal(pthread_create(&o.t, NULL, observer_main, &o), 0);
	r = analyze(rejected, 5000);
	assert_int_equal(pthread_join(o.t, NULL), 0);
	assert_true(o.seen);
	assert_false(o.has_marker);
	assert_int_equal(o.environ_len, 0);
	assert_true(o.same_exe);
	assert_true(o.seccomp);
	assert_true(o.nnp);
	/* and the verdict is the analysis's own */
	assert_int_equal(r->pass, 0);
	assert_int_equal(r->nfindings, 1);
	assert_string_equal(r->findings[0].rule, "process");
	assert_string_equal(r->findings[0].symbol, "system");
	tg_report_free(r);
	munmap(m, 4096);
	close(mfd);
	unsetenv("TG_PARENT_MARKER");
}

static atomic_int stop_churn;

static void *short_thread(void *arg)
{
	free(malloc(64));
	return arg;
}

/* Allocate and free, and start short threads, until told to stop. */
static void *churn_main(void *arg)
{
	unsigned n = 0;
	(void)arg;
	while (!atomic_load(&stop_churn)) {
		void *p[32];
		int i;
		for (i = 0; i < 32; i++)
			p[i] = malloc(16 + (size_t)((n * 7919u + (unsigned)i * 104729u) % 4096));
		for (i = 0; i < 32; i++)
			free(p[i]);
		if (++n % 64 == 0) {
			pthread_t t;
			if (pthread_create(&t, NULL, short_thread, NULL) == 0)
				pthread_join(t, NULL);
		}
	}
	return NULL;
}

/* Analyses while other threads allocate: each ends with its verdict, none
 * with "did not finish in time". */
static void test_beside_threads(void **state)
{
	pthread_t t[2];
	int i;
	(void)state;
	atomic_store(&stop_churn, 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn_main, NULL), 0);
	for (i = 0; i < 16; i++) {
		tg_report *r = analyze(i % 2 ? rejected : accepted, 3000);
		if (r->nfindings)
			print_message("analysis %d: %s: %s\n", i, r->findings[0].rule,
				      r->findings[0].message);
		assert_int_equal(r->pass, i % 2 ? 0 : 1);
		assert_int_equal(r->nfindings, i % 2 ? 1 : 0);
		if (i % 2)
			assert_string_equal(r->findings[0].rule, "process");
		tg_report_free(r);
	}
	atomic_store(&stop_churn, 1);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
}

/* Run this program as the parse child with descriptor 3 and 4 as given
 * (-1: closed); its exit code, its stderr in err. */
static int run_entry(int fd3, int fd4, char *err, size_t errsz)
{
	char *const argv[] = { "toolgate", CHILD_ARG, NULL };
	char *const envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	int ep[2], st = 0;
	pid_t pid;
	size_t n;
	assert_int_equal(pipe2(ep, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
	if (fd3 >= 0)
		posix_spawn_file_actions_adddup2(&fa, fd3, 3);
	if (fd4 >= 0)
		posix_spawn_file_actions_adddup2(&fa, fd4, 4);
	posix_spawn_file_actions_addclosefrom_np(&fa, fd3 >= 0 && fd4 >= 0 ? 5 : fd3 >= 0 ? 4 : 3);
	assert_int_equal(posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(ep[1]);
	n = 0;
	for (ssize_t k; n < errsz - 1 && (k = read(ep[0], err + n, errsz - 1 - n)) > 0;)
		n += (size_t)k;
	err[n] = '\0';
	close(ep[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* By hand, the entry says what it is; a garbled job ends it (125). */
static void test_entry_refuses(void **state)
{
	char err[512];
	int p[2], job;
	(void)state;
	assert_int_equal(run_entry(-1, -1, err, sizeof(err)), 2);
	assert_string_equal(err, "toolgate: " CHILD_ARG ": the analyzer's parse child, started by "
				 "toolgate itself with its job on descriptor 4\n");
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	job = memfd_create("job", MFD_CLOEXEC);
	assert_true(job >= 0);
	assert_int_equal(write(job, "{\"v\":1,\"source\":99}\nint x;", 26), 26);
	assert_int_equal(run_entry(p[1], job, err, sizeof(err)), 125);
	assert_string_equal(err, "");
	close(p[0]);
	close(p[1]);
	close(job);
}

/* In a fork of this test: load the parse filter, then do one thing. */
enum { DO_READ, DO_WRITE_OPEN, DO_CREATE, DO_UNLINK, DO_SOCKET, DO_EXEC, DO_FORK, DO_KILL,
       DO_MAP_EXEC, DO_THREAD, DO_COUNT };

static void *nothing(void *arg)
{
	return arg;
}

static _Noreturn void confined(int what)
{
	char buf[16];
	int fd;
	if (tg_sandbox_confine_parse() < 0)
		_exit(100);
	switch (what) {
	case DO_READ: /* what the parse does: read-only opens, reads, writes on a held fd */
		fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
		_exit(fd >= 0 && read(fd, buf, sizeof(buf)) > 0 && write(1, "", 0) == 0 &&
		      ioctl(1, TCGETS, buf) < 0 && errno == ENOTTY ? 0 : 101);
	case DO_WRITE_OPEN:
		open("/proc/self/status", O_WRONLY | O_CLOEXEC);
		break;
	case DO_CREATE:
		openat(AT_FDCWD, "/tmp/tg-parse-filter-probe", O_RDONLY | O_CREAT, 0600);
		break;
	case DO_UNLINK:
		unlink("/tmp/tg-parse-filter-probe");
		break;
	case DO_SOCKET:
		socket(AF_UNIX, SOCK_STREAM, 0);
		break;
	case DO_EXEC:
		execl("/bin/true", "true", (char *)NULL);
		break;
	case DO_FORK:
		syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
		break;
	case DO_KILL:
		kill(getppid(), 0);
		break;
	case DO_MAP_EXEC:
		mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case DO_THREAD: { /* threads stay allowed (clone3 falls back to clone) */
		pthread_t t;
		_exit(pthread_create(&t, NULL, nothing, NULL) == 0 && pthread_join(t, NULL) == 0 ? 0
											: 102);
	}
	}
	_exit(103); /* the call was let through */
}

/* The parse filter: the parse's own calls pass, each escape is killed. */
static void test_filter_refuses(void **state)
{
	static const char *const names[DO_COUNT] = { "read", "open for writing", "create",
						     "unlink", "socket", "exec", "fork", "kill",
						     "map executable", "thread" };
	int what;
	(void)state;
	for (what = 0; what < DO_COUNT; what++) {
		int st = 0, devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			dup2(devnull, 1);
			confined(what);
		}
		close(devnull);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (what == DO_READ || what == DO_THREAD) {
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				fail_msg("%s: status %#x", names[what], st);
		} else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS) {
			fail_msg("%s: not killed by the filter (status %#x)", names[what], st);
		}
	}
	assert_int_equal(access("/tmp/tg-parse-filter-probe", F_OK), -1);
}

int main(int argc, char **argv)
{
	tg_analyze_main(argc, argv, tg_sandbox_confine_parse);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_image),
		cmocka_unit_test(test_beside_threads),
		cmocka_unit_test(test_entry_refuses),
		cmocka_unit_test(test_filter_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
