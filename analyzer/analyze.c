/*
 * analyzer/analyze.c: tg_analyze(), the entry point of source vetting. The
 * pre-scan runs in the calling process; the libclang parse runs in a forked
 * child with an empty environment, no inherited descriptors, RLIMIT_CPU,
 * RLIMIT_AS, no core and no file writes, inside the virtual sysroot. The
 * parent waits on a pipe with a wall-clock deadline, kills the child when it
 * passes, reads at most 1 MiB of findings, and turns a crash, a kill or a
 * garbled answer into a `limits` finding: it never trusts or follows the
 * child's fate.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__)
#define TG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TG_UNDER_ASAN 1
#endif
#endif

#define TG_DEFAULT_TIMEOUT_MS 5000u
#define TG_DEFAULT_MEMORY_MB 1024u
#define TG_DEFAULT_MAX_SOURCE (1024u * 1024u)
#define TG_MAX_ANSWER (1024u * 1024u)

static void set_limit(int res, rlim_t v)
{
	struct rlimit rl = { v, v };
	(void)setrlimit(res, &rl);
}

#ifndef TG_UNDER_ASAN
/* The address space already mapped (libclang, the caller's heap): the
 * memory limit comes on top of it. */
static rlim_t mapped_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	fclose(f);
	return (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
}
#endif

/* The overlay as a file clang can open: a memfd, else an unlinked-after-use
 * temporary file. */
static int overlay_file(char *path, size_t pathsz, const char *yaml, int *tmp)
{
	int fd = memfd_create("toolgate-vfs", 0);
	*tmp = 0;
	if (fd >= 0) {
		snprintf(path, pathsz, "/proc/self/fd/%d", fd);
		if (tg_fd_write_all(fd, yaml, strlen(yaml)) == 0 && access(path, R_OK) == 0)
			return fd;
		close(fd);
	}
	snprintf(path, pathsz, "/tmp/toolgate-vfs-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	*tmp = 1;
	if (tg_fd_write_all(fd, yaml, strlen(yaml)) < 0) {
		unlink(path);
		close(fd);
		return -1;
	}
	return fd;
}

/* libclang in the parse child only (tg_analyze_clang_in_child). */
static atomic_int clang_in_child;

void tg_analyze_clang_in_child(int on)
{
	atomic_store(&clang_in_child, on);
}

/* libclang can be loaded: in this process, or (clang_in_child) once in a
 * throwaway child, so a missing library is still an environment error
 * here and not a verdict. */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_ok;

static void probe(void)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(tg_clang_load() < 0 ? 1 : 0);
	probe_ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		   WEXITSTATUS(status) == 0;
}

static int clang_ready(void)
{
	if (!atomic_load(&clang_in_child))
		return tg_clang_load();
	pthread_once(&probe_once, probe);
	return probe_ok ? 0 : tg_clang_load(); /* its error (or it loads after all) */
}

static _Noreturn void child_main(int wfd, const tg_policy *p, const char *source, size_t len,
				 const char *yaml, const tg_analyze_opts *o, uint32_t timeout_ms,
				 uint32_t memory_mb)
{
	tg_flist l = { 0 };
	tg_clang_job job = { 0 };
	char ovpath[64];
	char *ans = NULL;
	size_t anslen = 0;
	int devnull, ovfd, tmp = 0;

	/* descriptors: 0-2 on /dev/null, the answer pipe on 3, nothing else */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
	if (wfd != 3) {
		if (dup2(wfd, 3) < 0)
			_exit(120);
		wfd = 3;
	}
	if (close_range(4, ~0u, 0) < 0)
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	clearenv(); /* CPATH, C_INCLUDE_PATH, COMPILER_PATH, LIBCLANG_* ... */
	if (chdir("/") < 0)
		_exit(121);
	ovfd = overlay_file(ovpath, sizeof(ovpath), yaml, &tmp);
	if (ovfd < 0)
		_exit(122);
	/* loaded here when the parent keeps it out of its own memory (a
	 * failure leaves it to the parser's own "could not start" finding);
	 * before the limits, which count only what the parse maps after */
	if (atomic_load(&clang_in_child))
		(void)tg_clang_load();
	set_limit(RLIMIT_CPU, (rlim_t)(timeout_ms / 1000u + 1u));
#ifndef TG_UNDER_ASAN
	set_limit(RLIMIT_AS, mapped_bytes() + (rlim_t)memory_mb * 1024u * 1024u);
#else
	(void)memory_mb;
#endif
	set_limit(RLIMIT_CORE, 0);
	if (!tmp)
		set_limit(RLIMIT_FSIZE, 0);
	job.policy = p;
	job.source = source;
	job.len = len;
	job.overlay_path = ovpath;
	job.capabilities = o ? o->capabilities : NULL;
	job.ncapabilities = o ? o->ncapabilities : 0;
	tg_clang_check(&l, &job);
	if (tmp)
		unlink(ovpath);
	if (tg_flist_serialize(&ans, &anslen, &l) < 0 || tg_fd_write_all(wfd, ans, anslen) < 0)
		_exit(123);
	_exit(0);
}

/* The CPU time pid has used (user and system, ms), or UINT64_MAX. */
static uint64_t child_cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *c;
	unsigned long long ut, st;
	long tick = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UINT64_MAX;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || tick <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	c = strrchr(buf, ')'); /* fields 14 and 15 follow the command's name */
	if (!c || sscanf(c + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return UINT64_MAX;
	return (ut + st) * 1000u / (unsigned long long)tick;
}

/* The analysis's budget is its CPU time: a deadline reached while the child
 * has used less than the budget (a loaded host gave it less of a core) moves
 * on by what is left, up to four times the budget of wall time. 1 when the
 * child is out of time. */
static int out_of_time(pid_t pid, uint64_t *deadline, uint64_t start, uint32_t budget_ms)
{
	uint64_t now = tg_now_ms(), hard = start + 4 * (uint64_t)budget_ms, cpu;

	if (now < *deadline)
		return 0;
	cpu = child_cpu_ms(pid);
	if (cpu == UINT64_MAX || cpu + 50 >= budget_ms || now >= hard)
		return 1;
	*deadline = now + (budget_ms - cpu > 100 ? budget_ms - cpu : 100);
	if (*deadline > hard)
		*deadline = hard;
	return 0;
}

/* Wait for the child's answer within its time (out_of_time); 0 with the
 * answer, or a describing finding added to l. */
static void collect(tg_flist *l, const tg_policy *p, pid_t pid, int rfd, uint64_t start,
		    uint32_t budget_ms)
{
	tg_buf b = TG_BUF_INIT(TG_MAX_ANSWER);
	char chunk[16384];
	int eof = 0, killed = 0, too_big = 0, status = 0;
	uint64_t deadline = start + budget_ms;

	while (!eof) {
		uint64_t now = tg_now_ms();
		struct pollfd pfd = { rfd, POLLIN, 0 };
		int pr;
		if (now >= deadline && out_of_time(pid, &deadline, start, budget_ms)) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		if (now >= deadline)
			continue; /* moved on by out_of_time */
		pr = poll(&pfd, 1, (int)(deadline - now));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		ssize_t n = read(rfd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			eof = 1;
			break;
		}
		if (tg_buf_append(&b, chunk, (size_t)n) < 0) {
			kill(pid, SIGKILL);
			too_big = 1;
			break;
		}
	}
	/* reap: give an exiting child until the deadline, then kill it */
	for (;;) {
		pid_t w = waitpid(pid, &status, killed || too_big ? 0 : WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		if (w == 0) {
			if (out_of_time(pid, &deadline, start, budget_ms)) {
				kill(pid, SIGKILL);
				killed = 1;
			} else {
				struct timespec ts = { 0, 2 * 1000 * 1000 };
				nanosleep(&ts, NULL);
			}
		}
	}
	if (killed) {
		tg_flist_add(l, p, "limits", 0, 0, NULL,
			     "the analysis did not finish in time (macro expansion or size bomb?)");
	} else if (too_big) {
		tg_flist_add(l, p, "limits", 0, 0, NULL, "the analysis produced too much output");
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		if (sig == SIGXCPU || sig == SIGKILL)
			tg_flist_add(l, p, "limits", 0, 0, NULL,
				     "the analysis ran out of CPU time or memory");
		else
			tg_flist_add(l, p, "limits", 0, 0, NULL,
				     "the parser crashed on this source (signal %d; too deep or too large?)",
				     sig);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		tg_flist_add(l, p, "limits", 0, 0, NULL,
			     "the parser stopped abnormally (out of memory?)");
	} else if (tg_flist_deserialize(l, p, b.ptr ? b.ptr : "", b.len) < 0) {
		tg_flist_add(l, p, "limits", 0, 0, NULL, "the parser gave no usable answer");
	}
	tg_buf_free(&b);
}

int tg_analyze(tg_report **out, const tg_policy *p, const char *filename, const char *source,
	       size_t len, const tg_analyze_opts *opts)
{
	tg_policy *own = NULL;
	tg_flist l = { 0 };
	tg_prescan ps = { 0, NULL };
	uint64_t start = tg_now_ms();
	uint32_t timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : TG_DEFAULT_TIMEOUT_MS;
	uint32_t memory_mb = opts && opts->memory_mb ? opts->memory_mb : TG_DEFAULT_MEMORY_MB;
	size_t max = opts && opts->max_source_bytes ? opts->max_source_bytes : TG_DEFAULT_MAX_SOURCE;
	char *yaml = NULL;
	int fds[2] = { -1, -1 };
	pid_t pid;
	int r;

	(void)filename;
	*out = NULL;
	if (!source && len)
		return tg_error_set(TG_ERR_INVALID, "no source");
	if (!p) {
		r = tg_policy_default(&own);
		if (r < 0)
			return r;
		p = own;
	}
	tg_prescan_run(&ps, &l, p, source ? source : "", len, max);
	if (ps.blocking)
		goto done;
	{
		/* the child runs in "/": the overlay needs an absolute SDK path */
		char *abs = realpath(tg_vfs_sdk_dir(opts), NULL);
		r = tg_vfs_yaml(&yaml, abs ? abs : tg_vfs_sdk_dir(opts));
		free(abs);
	}
	if (r < 0)
		goto fail;
	/* load libclang here, once per process, so every parse child inherits it
	 * (unless tg_analyze_clang_in_child: then each child loads it) */
	r = clang_ready();
	if (r < 0)
		goto fail;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = tg_error_errno(TG_ERR_IO, errno, "pipe");
		goto fail;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = tg_error_errno(TG_ERR_UNAVAILABLE, errno, "fork");
		goto fail;
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], p, ps.clean, len, yaml, opts, timeout_ms, memory_mb);
	}
	close(fds[1]);
	fds[1] = -1;
	collect(&l, p, pid, fds[0], start, timeout_ms);
	close(fds[0]);
	fds[0] = -1;
done:
	free(yaml);
	yaml = NULL;
	tg_prescan_free(&ps);
	r = tg_flist_to_report(out, &l, tg_now_ms() - start);
	if (r < 0)
		goto fail;
	tg_policy_free(own);
	return 0;
fail:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(yaml);
	tg_prescan_free(&ps);
	tg_flist_free(&l);
	tg_policy_free(own);
	return r;
}
