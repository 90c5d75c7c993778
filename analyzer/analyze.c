/*
 * analyzer/analyze.c: tg_analyze(), the entry point of source vetting. The
 * pre-scan runs in the calling process; the libclang parse runs in a child
 * (child.c: a fresh image of the program, or a fork) with an empty
 * environment, no inherited descriptors, RLIMIT_CPU, RLIMIT_AS, no core and
 * no file writes, inside the virtual sysroot. The parent waits on a pipe
 * within the child's CPU budget, kills the child when it is spent, reads at
 * most 1 MiB of findings, and turns a crash, a kill or a garbled answer into
 * a `limits` finding: it never trusts or follows the child's fate.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#define TG_DEFAULT_TIMEOUT_MS 5000u
#define TG_DEFAULT_MEMORY_MB 1024u
#define TG_DEFAULT_MAX_SOURCE (1024u * 1024u)
#define TG_MAX_ANSWER (1024u * 1024u)

/* libclang can be loaded: a fresh image loads it itself and says when it
 * cannot (TG_PARSE_NO_CLANG); a fork inherits it from this process. */
static int clang_ready(void)
{
	return tg_parse_spawns() ? 0 : tg_clang_load();
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

/* What a fresh image's exit code says failed in its environment (not a
 * verdict), or NULL for any other code. */
static const char *env_failure(int code)
{
	switch (code) {
	case TG_PARSE_NO_CLANG:
		return "could not load libclang";
	case TG_PARSE_BAD_JOB:
		return "got no usable job";
	case TG_PARSE_NO_OVERLAY:
		return "could not write its overlay (a memfd)";
	case TG_PARSE_NO_CONFINE:
		return "could not load its seccomp filter";
	default:
		return NULL;
	}
}

/* Wait for the child's answer within its time (out_of_time): the answer,
 * or a describing finding, added to l. Returns 0, or the exit code of a
 * fresh image that could not start its parse (env_failure): the
 * environment's failure, not a verdict. */
static int collect(tg_flist *l, const tg_policy *p, pid_t pid, int rfd, uint64_t start,
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
		else if (sig == SIGSYS)
			tg_flist_add(l, p, "limits", 0, 0, NULL,
				     "the parser made a system call its seccomp filter refuses "
				     "(signal 31: an exploit of the parser?)");
		else
			tg_flist_add(l, p, "limits", 0, 0, NULL,
				     "the parser crashed on this source (signal %d; too deep or too large?)",
				     sig);
	} else if (tg_parse_spawns() && WIFEXITED(status) && env_failure(WEXITSTATUS(status))) {
		tg_buf_free(&b);
		return WEXITSTATUS(status);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		tg_flist_add(l, p, "limits", 0, 0, NULL,
			     "the parser stopped abnormally (out of memory?)");
	} else if (tg_flist_deserialize(l, p, b.ptr ? b.ptr : "", b.len) < 0) {
		tg_flist_add(l, p, "limits", 0, 0, NULL, "the parser gave no usable answer");
	}
	tg_buf_free(&b);
	return 0;
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
	r = clang_ready();
	if (r < 0)
		goto fail;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = tg_error_errno(TG_ERR_IO, errno, "pipe");
		goto fail;
	}
	{
		tg_parse_job job = { { p, ps.clean, len, NULL, opts ? opts->capabilities : NULL,
				       opts ? opts->ncapabilities : 0 },
				     yaml, timeout_ms, memory_mb };
		pid = tg_parse_start(fds[1], &job);
	}
	if (pid < 0) {
		r = tg_error_last()->code;
		goto fail;
	}
	close(fds[1]);
	fds[1] = -1;
	r = collect(&l, p, pid, fds[0], start, timeout_ms);
	if (r == TG_PARSE_NO_CLANG) {
		/* this process's own try says why (and loads it in the rare case it can) */
		r = tg_clang_load();
		if (r == 0)
			r = tg_error_set(TG_ERR_UNAVAILABLE, "analysis: the parse child %s",
					 env_failure(TG_PARSE_NO_CLANG));
		goto fail;
	}
	if (r != 0) {
		r = tg_error_set(TG_ERR_UNAVAILABLE, "analysis: the parse child %s",
				 env_failure(r));
		goto fail;
	}
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
