/*
 * store/bounded.c: run one piece of work of the store in a child process
 * under hard limits (docs/STORE.md, "Bounds of a pull"). `toolgate pull`
 * talks to a remote through libgit2, whose transports read and inflate what
 * the remote holds in the process that calls them; whatever the remote
 * advertises, that process must stay small and finish in time. So the work
 * runs in a forked child whose address space may grow by at most
 * b->mem_bytes over what it inherited (RLIMIT_AS: an allocation or mapping
 * past it fails), with libgit2's pack windows and object cache made small,
 * no core file, a CPU-time limit, and a wall-clock deadline after which the
 * parent kills it (SIGKILL). The child dies with the parent
 * (PR_SET_PDEATHSIG).
 * The child answers through a pipe in frames (a type byte, a 32-bit length,
 * at most ST_FRAME_MAX bytes): the work's own frames, then 'D' (done), 'E'
 * (an error: code and message) or 'M' (an allocation failed: the memory
 * limit). The parent hands each work frame to b->frame as it arrives, so
 * it holds one frame at a time. A child that ends without 'D' or 'E' (killed
 * by the deadline, or by a signal such as SIGSEGV when a mapping failed) is
 * an error naming the limits.
 */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define ST_FRAME_MAX (64u * 1024u)

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int st_frame_send(int fd, int type, const void *p, size_t n)
{
	unsigned char h[5];
	uint32_t len = (uint32_t)n;

	if (n > ST_FRAME_MAX)
		return tg_error_set(TG_ERR_INTERNAL, "frame of %zu bytes", n);
	h[0] = (unsigned char)type;
	memcpy(h + 1, &len, 4);
	if (write_all(fd, h, sizeof(h)) < 0 || write_all(fd, p, n) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "send a frame");
	return 0;
}

/* Bytes mapped by this process now (/proc/self/statm, first field). */
static uint64_t mapped_now(void)
{
	unsigned long long pages = 0;
	FILE *fp = fopen("/proc/self/statm", "re");

	if (fp) {
		if (fscanf(fp, "%llu", &pages) != 1)
			pages = 0;
		fclose(fp);
	}
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void child_limits(const st_bounded *b)
{
	struct rlimit r;
	uint64_t base = mapped_now();

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	r.rlim_cur = r.rlim_max = 0;
	(void)setrlimit(RLIMIT_CORE, &r);
	r.rlim_cur = r.rlim_max = b->seconds + 1;
	(void)setrlimit(RLIMIT_CPU, &r);
	/* libgit2 maps packs in windows of 1 GiB up to 8 GiB by default and
	 * caches up to 256 MiB of objects: within the limit instead */
	(void)git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)(1u << 20));
	(void)git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)(8u << 20));
	(void)git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)(4 << 20));
	if (base) {
		r.rlim_cur = r.rlim_max = base + b->mem_bytes;
		(void)setrlimit(RLIMIT_AS, &r);
	}
}

static void __attribute__((noreturn)) child_main(const st_bounded *b, int fd)
{
	const git_error *ge;
	char buf[4 + sizeof(((tg_error *)0)->message)];
	int rc, code;

	child_limits(b);
	if (getppid() == 1)
		_exit(1);
	rc = b->child(fd, b->arg);
	if (rc == 0) {
		(void)st_frame_send(fd, 'D', NULL, 0);
		_exit(0);
	}
	ge = git_error_last();
	if (tg_error_last()->code == TG_ERR_NOMEM || (ge && ge->klass == GIT_ERROR_NOMEMORY)) {
		(void)st_frame_send(fd, 'M', NULL, 0);
		_exit(1);
	}
	code = tg_error_last()->code ? tg_error_last()->code : rc;
	memcpy(buf, &code, 4);
	snprintf(buf + 4, sizeof(buf) - 4, "%s", tg_error_last()->message);
	(void)st_frame_send(fd, 'E', buf, 4 + strlen(buf + 4));
	_exit(1);
}

/* Read n bytes before the deadline: 1 done, 0 end of file, -1 deadline,
 * -2 error. */
static int read_until(int fd, void *p, size_t n, uint64_t deadline)
{
	char *c = p;

	while (n) {
		uint64_t now = tg_now_ms();
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;
		int pr;
		if (now >= deadline)
			return -1;
		pr = poll(&pf, 1, (int)(deadline - now > 1000000 ? 1000000 : deadline - now));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -2;
		if (pr == 0)
			continue;
		r = read(fd, c, n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -2;
		if (r == 0)
			return 0;
		c += r;
		n -= (size_t)r;
	}
	return 1;
}

typedef struct parent_state {
	int done, oom, late, err_code;
	char err[sizeof(((tg_error *)0)->message)];
} parent_state;

/* Every frame until 'D', 'E', 'M', the end of the pipe or the deadline;
 * 0, or the failure of b->frame (then the child is killed). */
static int read_frames(const st_bounded *b, int fd, uint64_t deadline, parent_state *ps,
		       char *payload)
{
	for (;;) {
		unsigned char h[5];
		uint32_t len;
		int r, rc;
		if ((r = read_until(fd, h, sizeof(h), deadline)) <= 0) {
			ps->late = r == -1;
			return 0;
		}
		memcpy(&len, h + 1, 4);
		if (len > ST_FRAME_MAX)
			return tg_error_set(TG_ERR_INTERNAL, "child frame of %u bytes", len);
		if ((r = read_until(fd, payload, len, deadline)) <= 0 && len) {
			ps->late = r == -1;
			return 0;
		}
		payload[len] = '\0';
		if (h[0] == 'D') {
			ps->done = 1;
			return 0;
		}
		if (h[0] == 'M') {
			ps->oom = 1;
			return 0;
		}
		if (h[0] == 'E' && len >= 4) {
			memcpy(&ps->err_code, payload, 4);
			snprintf(ps->err, sizeof(ps->err), "%s", payload + 4);
			return 0;
		}
		if ((rc = b->frame(b->arg, h[0], payload, len)) < 0)
			return rc;
	}
}

/* Wait for the child until the deadline, then kill it: its wait status. */
static int reap(pid_t pid, uint64_t deadline, int *late)
{
	int st = 0;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return st;
		if (w < 0 && errno != EINTR)
			return 0;
		if (tg_now_ms() >= deadline) {
			*late = 1;
			(void)kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return st;
		}
		usleep(2000);
	}
}

int st_bounded_run(const st_bounded *b, const char *what)
{
	uint64_t deadline = tg_now_ms() + (uint64_t)b->seconds * 1000u;
	parent_state ps;
	char *payload;
	int p[2], rc, st;
	pid_t pid;

	memset(&ps, 0, sizeof(ps));
	if (!(payload = malloc(ST_FRAME_MAX + 1)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (pipe2(p, O_CLOEXEC) < 0) {
		free(payload);
		return tg_error_errno(TG_ERR_IO, errno, "%s: pipe", what);
	}
	/* loaded before the fork, not in a child under its memory limit */
	if ((rc = tg_crypto_load()) < 0) {
		close(p[0]);
		close(p[1]);
		free(payload);
		return rc;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "%s: fork", what);
		close(p[0]);
		close(p[1]);
		free(payload);
		return rc;
	}
	if (pid == 0) {
		close(p[0]);
		child_main(b, p[1]);
	}
	close(p[1]);
	rc = read_frames(b, p[0], deadline, &ps, payload);
	close(p[0]);
	free(payload);
	if (rc < 0 || ps.late)
		(void)kill(pid, SIGKILL);
	st = reap(pid, deadline, &ps.late);
	if (rc < 0)
		return rc;
	if (ps.done && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (ps.err_code < 0)
		return tg_error_set(ps.err_code, "%s", ps.err);
	if (ps.late || (WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU))
		return tg_error_set(TG_ERR_LIMIT, "%s refused: it takes more than the %u s a pull may take",
				    what, b->seconds);
	if (ps.oom)
		return tg_error_set(TG_ERR_LIMIT, "%s refused: it needs more than the %llu MiB of memory "
						  "a pull may use", what,
				    (unsigned long long)(b->mem_bytes >> 20));
	if (WIFSIGNALED(st))
		return tg_error_set(TG_ERR_LIMIT, "%s refused: the fetch process ended by signal %d "
						  "(a pull may use %llu MiB of memory and %u s)", what,
				    WTERMSIG(st), (unsigned long long)(b->mem_bytes >> 20), b->seconds);
	return tg_error_set(TG_ERR_INTERNAL, "%s: the fetch process ended without an answer (status %d)",
			    what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
