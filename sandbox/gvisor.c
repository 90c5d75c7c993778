/*
 * sandbox/gvisor.c: the gVisor backend (tg_sandbox_opts.backend =
 * TG_SANDBOX_GVISOR). The tool runs on gVisor's own kernel (runsc, the
 * platform gvisor_platform.c decides: kvm or ptrace; --network=none) from a private OCI bundle (gvisor_spec.c). The
 * supervisor here keeps the native contract: runsc and every process it
 * starts (sentry, gofer) run inside a native memory/pids cgroup sized for
 * the tool plus gVisor's own overhead, stdin is a sealed memfd, stdout and
 * stderr are captured under the output cap, and the wall-clock timeout, the
 * cap, a cancel and the output limit kill the whole cgroup. A bridged run
 * (fd 3) starts as /shim /tool ARGS with runsc --host-uds=open, and its
 * bridge goes through a socket in the bundle that gvisor_relay.c accepts
 * and relays in this loop. What runsc
 * cannot hold is refused, never weakened: a workspace,
 * dynamic programs, threads or an explicit CPU-seconds limit (this runsc
 * does not enforce RLIMIT_CPU), and a machine without cgroups or root.
 */
#include "sandbox/gvisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct gv_run {
	struct sbx_cgroup cg;
	struct sbx_cpu cpu;
	char procs[3][720];    /* files the runsc process joins (v1: tasks) */
	char platform[24];     /* --platform=kvm|ptrace (gvisor_platform.c) */
	int nprocs;
	pid_t pid;
	int pidfd, in, outp[2], errp[2];
	struct rusage ru;
	int status;
	int bridged;           /* fd 3: the shim and the relay */
	struct sbx_relay relay;
};

/* What runsc cannot give as the native sandbox does: refused. */
static int gv_refuse(const tg_sandbox_opts *o)
{
	const char *why = NULL;

	if (o->workspace)
		why = "a workspace cannot be bound under gVisor (not built)";
	else if (o->dynamic)
		why = "dynamic programs cannot run under gVisor (not built: static tools only)";
	else if (o->max_procs > 1)
		why = "threads (max_procs > 1) cannot run under gVisor: this runsc does not "
		      "enforce RLIMIT_CPU, which the wall timeout covers only for one thread";
	else if (o->cpu_s)
		why = "a CPU-seconds limit (cpu_s) cannot be enforced under gVisor (runsc does "
		      "not apply RLIMIT_CPU)";
	else if (geteuid() != 0)
		why = "gVisor runs need root (rootless runsc is not built)";
	return why ? tg_error_set(TG_ERR_UNAVAILABLE, "gvisor: %s", why) : 0;
}

/* SIGKILL every process of the run's cgroup (runsc, sentry, gofer, the
 * ptrace stubs) until none is left or tries run out. */
static void gv_kill_all(struct gv_run *g)
{
	int round;

	for (round = 0; round < 50; round++) {
		FILE *f = fopen(g->procs[0], "re");
		int pid, any = 0;

		if (!f)
			return;
		while (fscanf(f, "%d", &pid) == 1) {
			kill(pid, SIGKILL);
			any = 1;
		}
		fclose(f);
		if (!any)
			return;
		usleep(2000);
	}
}

static int gv_spawn(struct gv_run *g, const char *runsc, const char *dir)
{
	char root[SBX_GVISOR_DIR + 16], bundle[SBX_GVISOR_DIR + 16], pidtxt[24];
	/* the container's id: the run's own folder's name (mkdtemp), unique on
	 * the host, since runsc names its control socket after it and two runs
	 * with one id collide ("address already in use") */
	const char *id = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	const char *argv[16] = { runsc, "--root", root, "--network=none", g->platform,
				 "--rootless=false", "--ignore-cgroups", "--oci-seccomp" };
	const char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	int i, n = 8;

	/* --host-uds=open only for a bridged run: the shim's one connection */
	if (g->bridged)
		argv[n++] = "--host-uds=open";
	argv[n++] = "run";
	argv[n++] = "--bundle";
	argv[n++] = bundle;
	argv[n++] = id;
	argv[n] = NULL;

	snprintf(root, sizeof(root), "%s/state", dir);
	snprintf(bundle, sizeof(bundle), "%s", dir);
	g->pid = fork();
	if (g->pid < 0)
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: fork");
	if (g->pid == 0) {
		/* async-signal-safe from here: no stdio in the child of a threaded
		 * process */
		unsigned v = (unsigned)getpid(), k = sizeof(pidtxt) - 1;
		pidtxt[k] = '\0';
		pidtxt[--k] = '\n';
		do
			pidtxt[--k] = (char)('0' + v % 10);
		while ((v /= 10) && k > 0);
		memmove(pidtxt, pidtxt + k, sizeof(pidtxt) - k);
		for (i = 0; i < g->nprocs; i++) {
			int fd = open(g->procs[i], O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, pidtxt, strlen(pidtxt)) < 0)
				_exit(126);
			close(fd);
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		if (dup2(g->in, 0) < 0 || dup2(g->outp[1], 1) < 0 || dup2(g->errp[1], 2) < 0)
			_exit(126);
		syscall(SYS_close_range, 3, ~0u, 0);
		execve(runsc, (char *const *)argv, (char *const *)envp);
		_exit(127);
	}
	g->pidfd = (int)syscall(SYS_pidfd_open, g->pid, 0);
	return g->pidfd < 0 ? tg_error_errno(TG_ERR_IO, errno, "gvisor: pidfd_open") : 0;
}

#define GV_LOST (-2)

/* The supervisor's loop: output, timeout, cap, cancel; returns the kill
 * reason (-1: runsc ended on its own; GV_LOST: a descriptor went bad). */
static int gv_wait(struct gv_run *g, const struct sbx_spec *s, tg_buf *ob, tg_buf *eb,
		   uint64_t t0)
{
	size_t total = 0, cap = (size_t)s->output_kb * 1024;
	uint64_t deadline = t0 + s->timeout_ms, drain_until = 0;
	int killed = -1, over = 0, out_eof = 0, err_eof = 0, done = 0;

	while (!(done && ((out_eof && err_eof) || tg_now_ms() >= drain_until))) {
		struct pollfd p[7];
		int n = 0, i_out = -1, i_err = -1, i_cancel = -1, i_relay = -1;
		uint64_t now = tg_now_ms(), until = done ? drain_until : deadline;
		int wait = now >= until ? 0 : until - now > 60000 ? 60000 : (int)(until - now);

		p[n].fd = g->pidfd;
		p[n++].events = done ? 0 : POLLIN;
		if (!out_eof) {
			i_out = n;
			p[n].fd = g->outp[0];
			p[n++].events = POLLIN;
		}
		if (!err_eof) {
			i_err = n;
			p[n].fd = g->errp[0];
			p[n++].events = POLLIN;
		}
		if (s->cancel && killed < 0) {
			i_cancel = n;
			p[n].fd = tg_cancel_fd(s->cancel);
			p[n++].events = POLLIN;
		}
		if (g->bridged && !done && killed < 0) {
			i_relay = n;
			n += sbx_relay_poll(&g->relay, p + n);
		}
		if (poll(p, (nfds_t)n, wait) < 0 && errno != EINTR)
			break;
		/* the bridge's peer shut the channel: as natively */
		if (i_relay >= 0 && sbx_relay_step(&g->relay, p + i_relay) < 0 && killed < 0)
			killed = TG_REASON_BRIDGE_PROTOCOL;
		/* a descriptor of this run closed under it (by a bug elsewhere in
		 * the process): end the run rather than poll a stale number */
		if (((p[0].revents | (i_out >= 0 ? p[i_out].revents : 0) |
		      (i_err >= 0 ? p[i_err].revents : 0)) & POLLNVAL)) {
			gv_kill_all(g);
			return GV_LOST;
		}
		if (i_cancel >= 0 && (p[i_cancel].revents & POLLIN) && tg_cancel_fired(s->cancel))
			killed = TG_REASON_CANCELLED;
		if (i_out >= 0 && (p[i_out].revents & (POLLIN | POLLHUP | POLLERR)))
			out_eof = sbx_pump(g->outp[0], ob, &total, cap, &over);
		if (i_err >= 0 && (p[i_err].revents & (POLLIN | POLLHUP | POLLERR)))
			err_eof = sbx_pump(g->errp[0], eb, &total, cap, &over);
		if (over && killed < 0) {
			killed = TG_REASON_OUTPUT_LIMIT;
			out_eof = err_eof = 1;
		}
		if (!done && killed < 0 && tg_now_ms() >= deadline)
			killed = TG_REASON_TIMEOUT;
		if (killed >= 0 && !done)
			gv_kill_all(g);
		if (!done && (p[0].revents & POLLIN)) {
			done = 1;
			/* what the sentry wrote is in the pipes; its helpers may hold them */
			drain_until = tg_now_ms() + 200;
		}
	}
	return killed;
}

static tg_reason gv_reason(struct gv_run *g, int killed, int *code, int *sig)
{
	int st = g->status;

	*code = -1;
	*sig = 0;
	if (killed >= 0)
		return (tg_reason)killed;
	if (sbx_cgroup_oom(&g->cg))
		return TG_REASON_MEMORY;
	/* the shim did not say its set-up held: the tool never ran */
	if (g->bridged && !g->relay.ready)
		return TG_REASON_SETUP;
	if (WIFSIGNALED(st)) {
		*sig = WTERMSIG(st);
		return TG_REASON_SIGNALED;
	}
	/* runsc exits 128 + n when the container's init died of signal n */
	if (WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 128 + 65) {
		*sig = WEXITSTATUS(st) - 128;
		/* the OCI seccomp rules kill with SIGSYS (the call is not named) */
		return *sig == SIGXFSZ	 ? TG_REASON_FILE_SIZE
		       : *sig == SIGSYS ? TG_REASON_SECCOMP
					: TG_REASON_SIGNALED;
	}
	*code = WEXITSTATUS(st);
	return TG_REASON_EXITED;
}

static int gv_rm(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	(void)remove(p); /* best effort: a left file does not fail the run */
	return 0;
}

static int gv_limits(struct gv_run *g, const struct sbx_spec *s)
{
	int r = sbx_cgroup_create(&g->cg, ((uint64_t)s->memory_mb + SBX_GVISOR_OVERHEAD_MB) << 20,
				  512);

	if (r < 0 || g->cg.version == 0)
		return tg_error_set(TG_ERR_UNAVAILABLE,
				    "gvisor: runs need a memory cgroup for their limit (%s)",
				    g->cg.why[0] ? g->cg.why : "none");
	if (g->cg.version == 2) {
		snprintf(g->procs[g->nprocs++], sizeof(g->procs[0]), "%s/cgroup.procs", g->cg.mem);
	} else {
		snprintf(g->procs[g->nprocs++], sizeof(g->procs[0]), "%s", g->cg.tasks[0]);
		snprintf(g->procs[g->nprocs++], sizeof(g->procs[0]), "%s", g->cg.tasks[1]);
	}
	if (s->cpu_percent && sbx_cpu_create(&g->cpu, &g->cg, s->cpu_percent) == 0 &&
	    g->cpu.version == 1)
		snprintf(g->procs[g->nprocs++], sizeof(g->procs[0]), "%s", g->cpu.tasks);
	return 0;
}

static int gv_result(tg_run_result **out, struct gv_run *g, tg_buf *ob, tg_buf *eb, int killed,
		     uint64_t t0)
{
	tg_run_result *res = calloc(1, sizeof(*res));

	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	res->reason = gv_reason(g, killed, &res->exit_code, &res->signal);
	res->wall_ms = tg_now_ms() - t0;
	res->cpu_ms = (uint64_t)(g->ru.ru_utime.tv_sec + g->ru.ru_stime.tv_sec) * 1000 +
		      (uint64_t)(g->ru.ru_utime.tv_usec + g->ru.ru_stime.tv_usec) / 1000;
	res->max_rss_kb = (uint64_t)g->ru.ru_maxrss;
	res->cgroups = 1;
	res->cpu_limited = g->cpu.version != 0;
	res->out = tg_buf_detach(ob, &res->out_len);
	res->err = tg_buf_detach(eb, &res->err_len);
	if (!res->out || !res->err) {
		tg_run_result_free(res);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	*out = res;
	return 0;
}

int sbx_gvisor_execute(tg_run_result **out, const struct sbx_spec *s)
{
	struct gv_run g = { .pidfd = -1, .in = -1, .outp = { -1, -1 }, .errp = { -1, -1 },
			    .bridged = s->fd3 > 0, .relay = { .lis = -1, .c = -1 } };
	tg_buf ob = TG_BUF_INIT(0), eb = TG_BUF_INIT(0);
	char runsc[512], dir[SBX_GVISOR_DIR] = "", plat[8];
	uint64_t t0 = tg_now_ms();
	int r, killed;

	*out = NULL;
	if ((r = tg_sandbox_runsc(runsc, sizeof(runsc))) < 0 ||
	    (r = tg_sandbox_gvisor_platform(plat, sizeof(plat), NULL, 0)) < 0 ||
	    (r = gv_limits(&g, s)) < 0)
		goto out;
	snprintf(g.platform, sizeof(g.platform), "--platform=%s", plat);
	r = sbx_gvisor_bundle(dir, s, sbx_as_bytes(s, g.cg.version));
	if (r < 0 || (g.bridged && (r = sbx_relay_open(&g.relay, dir, s->fd3)) < 0))
		goto out;
	g.in = sbx_make_stdin(s->stdin_data ? s->stdin_data : "", s->stdin_len);
	if (g.in < 0 || pipe2(g.outp, O_CLOEXEC) < 0 || pipe2(g.errp, O_CLOEXEC) < 0) {
		r = tg_error_errno(TG_ERR_IO, g.in < 0 ? -g.in : errno, "gvisor: pipes");
		goto out;
	}
	if ((r = gv_spawn(&g, runsc, dir)) < 0)
		goto out;
	tg_closep(&g.outp[1]);
	tg_closep(&g.errp[1]);
	fcntl(g.outp[0], F_SETFL, O_NONBLOCK);
	fcntl(g.errp[0], F_SETFL, O_NONBLOCK);
	killed = gv_wait(&g, s, &ob, &eb, t0);
	gv_kill_all(&g);
	if (g.bridged) /* a ready byte the loop had no turn for */
		sbx_relay_finish(&g.relay);
	if (wait4(g.pid, &g.status, 0, &g.ru) < 0) {
		r = tg_error_errno(TG_ERR_IO, errno, "gvisor: wait");
		goto out;
	}
	g.pid = 0;
	if (killed == GV_LOST) {
		r = tg_error_set(TG_ERR_IO, "gvisor: a descriptor of the run was closed under it");
		goto out;
	}
	if (killed < 0 && WIFEXITED(g.status) && WEXITSTATUS(g.status) >= 126 &&
	    WEXITSTATUS(g.status) <= 128 && !sbx_cgroup_oom(&g.cg) && eb.len == 0) {
		r = tg_error_set(TG_ERR_UNAVAILABLE, "gvisor: cannot start %s", runsc);
		goto out;
	}
	r = gv_result(out, &g, &ob, &eb, killed, t0);
out:
	if (g.pid > 0) {
		gv_kill_all(&g);
		waitpid(g.pid, NULL, 0);
	}
	tg_closep(&g.pidfd);
	tg_closep(&g.in);
	tg_closep(&g.outp[0]);
	tg_closep(&g.outp[1]);
	tg_closep(&g.errp[0]);
	tg_closep(&g.errp[1]);
	sbx_relay_close(&g.relay);
	if (g.cg.version)
		sbx_cgroup_release(&g.cg, 1);
	sbx_cpu_release(&g.cpu);
	if (dir[0])
		nftw(dir, gv_rm, 16, FTW_DEPTH | FTW_PHYS);
	tg_buf_free(&ob);
	tg_buf_free(&eb);
	return r;
}

/* A program runsc cannot load (not an ELF file, or one that needs a
 * dynamic loader the empty root does not have): reason setup, as a native
 * exec that fails, decided here rather than read from runsc's own error. */
static int gv_not_static(tg_run_result **out, const char *display, int elf)
{
	tg_buf eb = TG_BUF_INIT(0);
	tg_run_result *res;

	if (elf == SBX_ELF_STATIC)
		return 0;
	res = calloc(1, sizeof(*res));
	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	res->reason = TG_REASON_SETUP;
	res->exit_code = -1;
	tg_buf_printf(&eb, "toolgate: sandbox: cannot execute %s: %s\n", display,
		      elf == SBX_ELF_DYNAMIC ? "a dynamic program (gVisor runs static ones only)"
			  : "not a 64-bit ELF program");
	res->err = tg_buf_detach(&eb, &res->err_len);
	res->out = strdup("");
	if (!res->err || !res->out) {
		tg_run_result_free(res);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	*out = res;
	return 1;
}

int sbx_gvisor_run(tg_run_result **out, const tg_sandbox_opts *o, const char *real, int elf)
{
	static const char *const empty_env[] = { NULL };
	const char *argv_default[2], *base;
	struct sbx_spec *s;
	int r = gv_refuse(o);

	if (r < 0 || (r = gv_not_static(out, o->program, elf)) != 0)
		return r < 0 ? r : 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	sbx_spec_defaults(s, o);
	s->profile = SBX_PROFILE_RUN;
	s->exec_path = "/tool";
	s->display = o->program;
	s->tool_src = real;
	base = strrchr(o->program, '/');
	argv_default[0] = base ? base + 1 : o->program;
	argv_default[1] = NULL;
	s->argv = o->argv && o->argv[0] ? o->argv : argv_default;
	s->envp = empty_env;
	s->stdin_data = o->stdin_data;
	s->stdin_len = o->stdin_len;
	s->fd3 = o->fd3 > 0 ? o->fd3 : 0;
	r = sbx_gvisor_execute(out, s);
	free(s);
	return r;
}
