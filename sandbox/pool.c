/*
 * sandbox/pool.c: sandboxes made ahead (tg_sandbox_pool_start), for a
 * long-lived process such as `toolgate serve`.
 *
 * A pool entry is an ordinary run (run.c) set up before its program is
 * known: its tracer thread has entered a fresh network namespace, cloned the
 * child into the other namespaces and its cgroup slot, mapped its ids and
 * seized it; the child (child.c) has built its root (no /tool: the program
 * comes as a descriptor), mounted /tmp and the device nodes, made its time
 * namespace (its clocks start at 0 now), set its rlimits to the pool's
 * ceilings, dropped its credentials, applied Landlock, loaded the
 * RUN_POOLED filter and exec'd the waiter (waiter/waiter.c, from a sealed
 * memfd made here once), which waits on the sync socket. A run that fits
 * (a static tool, no workspace, no extra files, limits within the
 * ceilings, traced) takes the oldest ready entry younger than max_age_ms
 * (its tool can read the entry's age on its clocks; older ones are
 * discarded): the supervisor lowers the cgroup limits and the child's
 * rlimits (prlimit), then sends stdin and the program (an O_PATH
 * descriptor of the binary) and the argv; the waiter execveat()s the
 * descriptor. The result goes back as soon as the init is reaped; joining
 * its tracer thread and releasing its cgroup slot and descriptors is left
 * to the refill thread. Each entry serves one run and is never reused. The
 * refill thread makes entries up to the pool's size, after the runs in
 * flight are over (on two cores a refill during a run slows that run by as
 * much as it saves), or at once when the pool is empty; it also replaces
 * the oldest entry once it is refresh_ms old, so that a ready entry is
 * normally fresh. After POOL_IDLE_MS without a run it drops its entries
 * and sleeps until the next run (an idle server holds no sandbox and
 * makes none). Anything that does
 * not fit, or an empty pool, takes the ordinary path (run.c), which stays
 * the only path of one-shot commands. Runs with seccomp off (a test switch)
 * get an entry made for them on the spot, without the filter.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#define POOL_MAX 8
/* An entry older than this is not used: its clocks started when it was
 * made, and a tool may read them (test_contract: at most 5 s). */
#define POOL_MAX_AGE_MS 5000u
/* The refill thread replaces an entry this old (at its idle priority). */
#define POOL_REFRESH_MS 3000u
/* No run for this long: the pool holds nothing (its entries dropped, none
 * made or replaced) until the next run wakes it. */
#define POOL_IDLE_MS 60000u

struct pool_entry {
	struct sbx_run r;
	struct sbx_spec spec; /* the ceilings the child was prepared with */
	struct pool_entry *next; /* on the list of served entries to release */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
/* safe across fork() (forksafe.c): registered at load, before any thread */
__attribute__((constructor)) static void guard_mu(void)
{
	sbx_fork_guard(&mu, &cv);
}
static struct pool_entry *ready_q[POOL_MAX];
static struct pool_entry *served_q; /* results given, release pending */
static int nready, size, active, stopping, broken, running;
static pid_t owner;
static pthread_t refill_th;
static struct sbx_spec ceil_spec; /* limits of the entries to make */
static unsigned long served;
static char last_err[256];
/* The entry being made (its tracer thread and child), and whether the
 * making runs SCHED_IDLE: a run that finds the pool empty boosts it
 * (boost_making), and the policy is used only if a thread of ours can go
 * back from SCHED_IDLE (idle_ok, probed at start: CAP_SYS_NICE or
 * RLIMIT_NICE). */
static struct pool_entry *making;
static int making_idle, idle_ok;
static uint32_t max_age_ms = POOL_MAX_AGE_MS, refresh_ms = POOL_REFRESH_MS;
static unsigned long stale;
/* The last run that could use the pool, and whether the refill thread
 * sleeps for want of one (POOL_IDLE_MS). */
static uint64_t last_take_ms;
static uint32_t idle_ms = POOL_IDLE_MS;
static int quiet;
/* The waiter program in a sealed memfd (read-only), made once per process
 * and kept: every entry's child takes a copy of it when it is cloned. */
static int waiter_fd = -1;

static const char *const empty_env[] = { NULL };

#ifdef TG_SANDBOX_PROFILE
volatile uint64_t *sbx_prof;
#endif

/* Release entries whose results went back (see sbx_run_wait). */
static void release_all(struct pool_entry *e)
{
	while (e) {
		struct pool_entry *next = e->next;
		sbx_run_discard(&e->r);
		sbx_net_after_run();
		free(e);
		e = next;
	}
}

/* Its tracer thread and child at full priority (they inherited the
 * refill thread's SCHED_IDLE); 0, or -1 when the policy cannot be set. */
static int boost_entry(struct pool_entry *e)
{
	struct sched_param sp = { 0 };
	pid_t pid;
	int rc = 0;

	if (pthread_setschedparam(e->r.th, SCHED_OTHER, &sp) != 0)
		rc = -1;
	pid = __atomic_load_n(&e->r.pid, __ATOMIC_ACQUIRE);
	if (pid > 0 && sched_setscheduler(pid, SCHED_OTHER, &sp) < 0 && errno != ESRCH)
		rc = -1;
	return rc;
}

static void unpublish(struct pool_entry *e)
{
	pthread_mutex_lock(&mu);
	if (making == e)
		making = NULL;
	pthread_mutex_unlock(&mu);
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif

/* The waiter's memfd (waiter_fd): executable (MFD_EXEC where the kernel
 * knows it, so that vm.memfd_noexec=1 does not seal it non-executable),
 * sealed against any change, and reopened read-only (an exec refuses a
 * file open for writing). Called with mu held; 0 or < 0. */
static int make_waiter(void)
{
	char path[64];
	size_t off = 0;
	int fd, ro;

	if (waiter_fd >= 0)
		return 0;
	fd = (int)syscall(SYS_memfd_create, "tg-waiter", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_memfd_create, "tg-waiter", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "sandbox pool: memfd for the waiter");
	while (off < sbx_waiter_elf_len) {
		ssize_t k = write(fd, sbx_waiter_elf + off, sbx_waiter_elf_len - off);
		if (k <= 0) {
			close(fd);
			return tg_error_errno(TG_ERR_IO, k < 0 ? errno : EIO,
					      "sandbox pool: writing the waiter");
		}
		off += (size_t)k;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_EXEC |
					  F_SEAL_SEAL) < 0 &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		close(fd);
		return tg_error_errno(TG_ERR_IO, errno, "sandbox pool: sealing the waiter");
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	close(fd);
	if (ro < 0)
		return tg_error_errno(TG_ERR_IO, errno, "sandbox pool: reopening the waiter");
	waiter_fd = ro;
	return 0;
}

/* Make one entry and wait until its child is ready; NULL on failure.
 * no_seccomp: without the filter (SBX_TEST_NO_SECCOMP); idle: made by the
 * refill thread at SCHED_IDLE (the entry is published in making, for a
 * run that finds the pool empty to boost). */
static struct pool_entry *make_entry(int no_seccomp, int idle)
{
	struct pool_entry *e = calloc(1, sizeof(*e));
	struct pollfd p;
	struct sbx_msg m;
	uint64_t t0;
	ssize_t k;

	if (!e)
		return NULL;
	e->spec = ceil_spec;
	if (no_seccomp)
		e->spec.test_flags |= SBX_TEST_NO_SECCOMP;
	/* before the clocks' offsets are taken: its age is never less */
	t0 = tg_now_ms();
	if (sbx_run_setup(&e->r, &e->spec, waiter_fd) < 0) {
		snprintf(last_err, sizeof(last_err), "%.200s", tg_error_last()->message);
		goto fail;
	}
	e->r.made_ms = t0;
	if (idle) {
		pthread_mutex_lock(&mu);
		making = e;
		if (!making_idle) /* boosted before it was published */
			(void)boost_entry(e);
		pthread_mutex_unlock(&mu);
	}
	sbx_run_await_clone(&e->r); /* its first message is the tracer's */
	p.fd = e->r.sync_parent;
	p.events = POLLIN;
	if (poll(&p, 1, 5000) != 1) {
		snprintf(last_err, sizeof(last_err), "sandbox pool: no ready child in 5 s");
		goto fail;
	}
	memset(&m, 0, sizeof(m));
	k = recv(e->r.sync_parent, &m, sizeof(m), MSG_DONTWAIT);
	if (k != (ssize_t)sizeof(m) || m.type != SBX_MSG_READY) {
		m.step[sizeof(m.step) - 1] = '\0';
		snprintf(last_err, sizeof(last_err), "sandbox pool: %s: %s",
			 k == (ssize_t)sizeof(m) && m.type == SBX_MSG_ERROR ? m.step : "child setup",
			 strerror(k == (ssize_t)sizeof(m) ? m.err : EPIPE));
		goto fail;
	}
	/* RUN_POOLED stops denied calls for the tracer to kill: never an
	 * entry that is not traced */
	if (!e->r.seized) {
		snprintf(last_err, sizeof(last_err), "sandbox pool: cannot trace the child (ptrace)");
		goto fail;
	}
	unpublish(e);
	return e;
fail:
	unpublish(e);
	sbx_run_discard(&e->r);
	free(e);
	return NULL;
}

/* Wait on cv until ms from now at most (mu held). */
static void wait_ms(uint64_t ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(ms / 1000);
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	(void)pthread_cond_timedwait(&cv, &mu, &until);
}

/* An entry that will not be used, at full priority (it may have been made
 * at SCHED_IDLE: a loaded host would starve its death and reap). */
static void drop_entry(struct pool_entry *e)
{
	(void)boost_entry(e);
	sbx_run_discard(&e->r);
	free(e);
}

static void *refill_main(void *arg)
{
	struct sched_param sp = { 0 };
	uint64_t t0;
	int had, idle;

	(void)arg;
	pthread_mutex_lock(&mu);
	while (!stopping) {
		struct pool_entry *e;
		if (served_q) {
			e = served_q;
			served_q = NULL;
			/* the release (and the net namespace maker it starts)
			 * yields as the making does */
			(void)pthread_setschedparam(pthread_self(), nready && idle_ok ? SCHED_IDLE
										: SCHED_OTHER, &sp);
			pthread_mutex_unlock(&mu);
			t0 = tg_prof_on ? tg_prof_ns() : 0;
			release_all(e);
			if (t0)
				tg_prof_span("release", t0, tg_prof_ns());
			pthread_mutex_lock(&mu);
			continue;
		}
		if (!broken && active == 0 && tg_now_ms() - last_take_ms >= idle_ms) {
			/* idle: hold nothing, make nothing (an idle server
			 * does not keep remaking entries as they age); the
			 * next run wakes this thread (take) */
			if (nready > 0) {
				struct pool_entry *old = ready_q[--nready];
				pthread_mutex_unlock(&mu);
				drop_entry(old);
				pthread_mutex_lock(&mu);
				continue;
			}
			quiet = 1;
			pthread_cond_wait(&cv, &mu);
			quiet = 0;
			continue;
		}
		if (broken || (active > 0 && nready > 0) || (nready >= size && refresh_ms == UINT32_MAX)) {
			pthread_cond_wait(&cv, &mu);
			continue;
		}
		if (nready >= size) {
			/* full: replace the oldest once it is refresh_ms old; it
			 * goes first, so that the pool never holds more than size
			 * children (the next turn makes its successor) */
			uint64_t now = tg_now_ms(), due = ready_q[0]->r.made_ms + refresh_ms;
			struct pool_entry *old = ready_q[0];
			if (now < due) {
				wait_ms(due - now);
				continue;
			}
			memmove(ready_q, ready_q + 1, sizeof(ready_q[0]) * (size_t)(nready - 1));
			nready--;
			pthread_mutex_unlock(&mu);
			drop_entry(old);
			pthread_mutex_lock(&mu);
			continue;
		}
		/* SCHED_IDLE while the pool still holds an entry: the making runs
		 * only on a CPU nothing else wants, so it never competes with the
		 * call being served (the serving thread, the tool, the WAL's
		 * fdatasync and the kernel threads that complete it); back to
		 * back, a making at full priority overlapped nine calls in ten
		 * and doubled their fdatasync (docs/SANDBOX.md, "The pool"). A
		 * run that finds the pool empty boosts it (boost_making), or
		 * takes the ordinary path when it cannot. SCHED_OTHER when the
		 * pool is empty. The tracer thread and the child inherit the
		 * policy until their run is handed over (hand_over). */
		making_idle = nready && idle_ok;
		(void)pthread_setschedparam(pthread_self(), making_idle ? SCHED_IDLE : SCHED_OTHER,
					    &sp);
		had = nready;
		idle = making_idle;
		pthread_mutex_unlock(&mu);
		t0 = tg_prof_on ? tg_prof_ns() : 0;
		e = make_entry(0, idle);
		if (t0)
			tg_prof_span(had ? "make" : "make_empty", t0, tg_prof_ns());
		pthread_mutex_lock(&mu);
		making_idle = 0;
		if (!e) {
			broken = 1; /* never spin; runs take the ordinary path */
		} else if (stopping || nready >= size) {
			pthread_mutex_unlock(&mu);
			sbx_run_discard(&e->r);
			free(e);
			pthread_mutex_lock(&mu);
		} else {
			ready_q[nready++] = e;
		}
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *probe_main(void *arg)
{
	struct sched_param sp = { 0 };

	*(int *)arg = pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) == 0 &&
		      pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp) == 0;
	return NULL;
}

/* Can a thread of ours go SCHED_IDLE and back? (CAP_SYS_NICE or
 * RLIMIT_NICE; without, the making runs SCHED_OTHER throughout.) */
static int probe_idle(void)
{
	pthread_t th;
	int ok = 0;

	if (pthread_create(&th, NULL, probe_main, &ok) != 0)
		return 0;
	pthread_join(th, NULL);
	return ok;
}

int tg_sandbox_pool_start(unsigned n, const tg_sandbox_opts *ceilings)
{
	static const tg_sandbox_opts none;
	const tg_sandbox_opts *c = ceilings ? ceilings : &none;
	int r;

	tg_sandbox_pool_stop();
	if (n == 0)
		return 0;
	if (n > POOL_MAX)
		n = POOL_MAX;
	memset(&ceil_spec, 0, sizeof(ceil_spec));
	sbx_spec_defaults(&ceil_spec, c);
	ceil_spec.profile = SBX_PROFILE_RUN;
	ceil_spec.timeout_ms = 24u * 3600 * 1000; /* RLIMIT_CPU until the run lowers it */
	ceil_spec.cpu_s = 0;
	ceil_spec.envp = empty_env;
	ceil_spec.exec_path = "";
	if ((r = sbx_spec_bind_dev(&ceil_spec)) < 0)
		return r;
#ifdef TG_SANDBOX_PROFILE
	if (!sbx_prof) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		sbx_prof = p == MAP_FAILED ? NULL : p;
	}
#endif
	idle_ok = probe_idle();
	pthread_mutex_lock(&mu);
	if ((r = make_waiter()) < 0) {
		pthread_mutex_unlock(&mu);
		return r;
	}
	size = (int)n;
	stopping = broken = 0;
	making = NULL;
	making_idle = 0;
	last_err[0] = '\0';
	owner = getpid();
	last_take_ms = tg_now_ms();
	quiet = 0;
	if (pthread_create(&refill_th, NULL, refill_main, NULL) != 0) {
		pthread_mutex_unlock(&mu);
		return tg_error_set(TG_ERR_IO, "sandbox pool: cannot start its thread");
	}
	running = 1;
	pthread_mutex_unlock(&mu);
	return 0;
}

static int boost_making(void);

void tg_sandbox_pool_stop(void)
{
	struct pool_entry *q[POOL_MAX], *done;
	int n, i, join, mine;

	pthread_mutex_lock(&mu);
	/* a forked copy's entries, runs and making are its parent's */
	mine = owner == getpid();
	join = running && mine;
	stopping = 1;
	/* an entry being made at SCHED_IDLE would hold the join up for as
	 * long as anything else wants the CPU (a loaded host: minutes) */
	if (join && making_idle)
		(void)boost_making();
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	if (join)
		pthread_join(refill_th, NULL);
	pthread_mutex_lock(&mu);
	if (!mine) {
		active = 0;
		making = NULL;
	}
	n = mine ? nready : 0;
	memcpy(q, ready_q, sizeof(q));
	done = mine ? served_q : NULL;
	served_q = NULL;
	nready = 0;
	running = 0;
	size = 0;
	pthread_mutex_unlock(&mu);
	for (i = 0; i < n; i++)
		drop_entry(q[i]); /* made at SCHED_IDLE: boosted first */
	release_all(done);
}

/* Does spec s fit an entry made with ceil_spec? */
static int fits(const struct sbx_spec *s)
{
	return s->profile == SBX_PROFILE_RUN && !s->nbinds && !s->nfiles && !s->want_tmpfd && !s->nlinks &&
	       !(s->test_flags & (SBX_TEST_NO_PTRACE | SBX_TEST_HOLD_GO)) && s->memory_mb <= ceil_spec.memory_mb &&
	       s->max_procs <= ceil_spec.max_procs && s->max_files <= ceil_spec.max_files &&
	       s->tmp_mb == ceil_spec.tmp_mb &&
	       /* the CPU share is set when the entry is made (its cgroup) */
	       s->cpu_percent == ceil_spec.cpu_percent;
}

static void run_over(void)
{
	pthread_mutex_lock(&mu);
	active--;
	pthread_cond_broadcast(&cv); /* the refill may go on */
	pthread_mutex_unlock(&mu);
}

/* Called with mu held: the entry being made goes on at full priority (its
 * maker, tracer thread and child), and so does the refill thread. */
static int boost_making(void)
{
	struct sched_param sp = { 0 };
	int rc = 0;

	making_idle = 0;
	if (pthread_setschedparam(refill_th, SCHED_OTHER, &sp) != 0)
		rc = -1;
	if (making && boost_entry(making) < 0)
		rc = -1;
	return rc;
}

static struct pool_entry *take(const struct sbx_spec *s)
{
	struct pool_entry *e = NULL;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2; /* one on its way takes ~1 ms; never hang on it */
	pthread_mutex_lock(&mu);
	if (!running || stopping || owner != getpid() || !fits(s)) {
		pthread_mutex_unlock(&mu);
		return NULL;
	}
	last_take_ms = tg_now_ms();
	if (quiet) /* the refill thread sleeps: this run wants entries again */
		pthread_cond_broadcast(&cv);
	if (s->test_flags & SBX_TEST_NO_SECCOMP) {
		/* the ready entries carry the filter: one without, made now */
		active++;
		pthread_mutex_unlock(&mu);
		if (!(e = make_entry(1, 0)))
			run_over();
		return e;
	}
	/* entries too old to be used (their clocks started when they were
	 * made): the refill thread releases them (boosted: made at idle) */
	while (nready > 0 && tg_now_ms() - ready_q[0]->r.made_ms >= max_age_ms) {
		struct pool_entry *old = ready_q[0];
		memmove(ready_q, ready_q + 1, sizeof(ready_q[0]) * (size_t)(nready - 1));
		nready--;
		stale++;
		(void)boost_entry(old);
		old->next = served_q;
		served_q = old;
		pthread_cond_broadcast(&cv); /* the refill thread: release, make */
	}
	/* nready is 0: the refill thread makes one next (after releasing
	 * what it holds), unless making failed; one being made at idle
	 * priority is boosted first, or the run goes the ordinary way */
	if (nready == 0 && making_idle && boost_making() < 0) {
		pthread_mutex_unlock(&mu);
		return NULL;
	}
	while (nready == 0 && !broken && !stopping)
		if (pthread_cond_timedwait(&cv, &mu, &until) != 0)
			break;
	if (nready > 0) {
		e = ready_q[0];
		memmove(ready_q, ready_q + 1, sizeof(ready_q[0]) * (size_t)(nready - 1));
		nready--;
		active++;
		/* the last one: the next is wanted at full priority */
		if (nready == 0 && making_idle)
			(void)boost_making();
	}
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return e;
}

/* The run's rlimits on the waiting child, soft = hard, never above what
 * it holds (the ceilings); those that depend on the run, as child.c sets
 * them (sbx_rlimit_value; the others are the same for every run). The
 * child made its user namespace from our credentials, so prlimit on it is
 * ours to make. */
static int lower_limits(pid_t pid, const struct sbx_spec *s, int cg_version)
{
	uint64_t as = sbx_as_bytes(s, cg_version);
	int res;

	/* as child.c sets them (sbx_limit_tighten); the waiter runs nothing
	 * meanwhile */
	for (res = 0; res < RLIM_NLIMITS; res++)
		if (sbx_rlimit_per_run(res) &&
		    sbx_limit_tighten(pid, res, sbx_rlimit_value(s, res, as)) < 0)
			return -1;
	return 0;
}

/* Send the run; 0, or -1 when the child cannot take it (it is then
 * discarded and the run takes the ordinary path). */
static int hand_over(struct pool_entry *e, const struct sbx_spec *s, const char *program)
{
	struct sbx_run_msg *m = calloc(1, sizeof(*m));
	struct sbx_run *r = &e->r;
	int fds[3] = { -1, -1, s->fd3 }, nfd = s->fd3 > 0 ? 3 : 2, ret = -1, i;
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov;
	struct msghdr mh = { 0 };
	struct cmsghdr *c;
	size_t off = 0;

	if (!m)
		return -1;
	m->type = SBX_MSG_RUN;
	for (i = 0; s->argv[i]; i++) {
		size_t n = strlen(s->argv[i]) + 1;
		if (i >= SBX_POOL_ARGC_MAX || off + n > sizeof(m->argv))
			goto out; /* does not fit: the ordinary path */
		memcpy(m->argv + off, s->argv[i], n);
		off += n;
	}
	m->argc = (uint32_t)i;
	m->argv_len = (uint32_t)off;
	m->has_fd3 = s->fd3 > 0;
	if (r->cg.version &&
	    sbx_cgroup_tighten(&r->cg, (uint64_t)s->memory_mb << 20, s->max_procs) < 0)
		goto out;
	if (lower_limits(r->pid, s, r->cg.version) < 0)
		goto out;
	SBX_PROF(SBX_PROF_LIMITS);
	fds[0] = sbx_make_stdin(s->stdin_data ? s->stdin_data : "",
				s->stdin_data ? s->stdin_len : 0);
	fds[1] = open(program, O_PATH | O_CLOEXEC);
	if (fds[0] < 0 || fds[1] < 0)
		goto out;
	SBX_PROF(SBX_PROF_STDIN);
	/* the run's own scheduling: as an unpooled run's (see refill_main);
	 * a tool left SCHED_IDLE would starve, so never run it so */
	{
		struct sched_param sp = { 0 };
		if (pthread_setschedparam(r->th, SCHED_OTHER, &sp) != 0 ||
		    sched_setscheduler(r->pid, SCHED_OTHER, &sp) < 0)
			goto out;
	}
	/* the supervisor's view of the run from here on is the caller's spec */
	r->spec = s;
	r->t0 = tg_now_ms();
	iov.iov_base = m;
	iov.iov_len = sizeof(*m);
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = CMSG_SPACE((size_t)nfd * sizeof(int));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)nfd * sizeof(int));
	memcpy(CMSG_DATA(c), fds, (size_t)nfd * sizeof(int));
	if (!atomic_load(&r->finished) &&
	    sendmsg(r->sync_parent, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m))
		ret = 0;
	SBX_PROF(SBX_PROF_SENT);
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(m);
	return ret;
}

int sbx_pool_execute(tg_run_result **out, const struct sbx_spec *s, const char *program)
{
	struct pool_entry *e;
	int ret, later;

#ifdef TG_SANDBOX_PROFILE
	if (sbx_prof)
		memset((void *)sbx_prof, 0, SBX_PROF_N * sizeof(uint64_t));
#endif
	SBX_PROF(SBX_PROF_START);
	e = take(s);
	SBX_PROF(SBX_PROF_TAKEN);
	if (!e)
		return 0;
	tg_prof_mark(TG_PROF_POOL_TAKEN);
	if ((ret = hand_over(e, s, program)) < 0) {
		sbx_run_discard(&e->r);
		free(e);
		run_over();
		return 0;
	}
	tg_prof_mark(TG_PROF_HANDED);
	e->r.defer_release = 1;
	ret = sbx_run_wait(out, &e->r, NULL);
	e->r.spec = &e->spec; /* s is the caller's, gone after this */
	pthread_mutex_lock(&mu);
	served++;
	later = e->r.defer_release == 2 && running && !stopping && owner == getpid();
	if (later) { /* the refill thread joins and releases it */
		e->next = served_q;
		served_q = e;
	}
	pthread_mutex_unlock(&mu);
	if (!later) {
		if (e->r.defer_release == 2) {
			sbx_run_discard(&e->r);
			sbx_net_after_run();
		}
		free(e);
	}
	run_over();
	return ret < 0 ? ret : 1;
}

int sbx_pool_test_pids(int *pids, int max)
{
	int i;

	pthread_mutex_lock(&mu);
	for (i = 0; i < nready && i < max; i++)
		pids[i] = ready_q[i]->r.pid;
	pthread_mutex_unlock(&mu);
	return i;
}

void sbx_pool_test_lock(int take_it)
{
	if (take_it)
		pthread_mutex_lock(&mu);
	else
		pthread_mutex_unlock(&mu);
}

void sbx_pool_test_idle(uint32_t ms)
{
	pthread_mutex_lock(&mu);
	idle_ms = ms ? ms : POOL_IDLE_MS;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

void sbx_pool_test_ages(uint32_t max_ms, uint32_t refresh)
{
	pthread_mutex_lock(&mu);
	max_age_ms = max_ms ? max_ms : POOL_MAX_AGE_MS;
	refresh_ms = refresh ? refresh : POOL_REFRESH_MS;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

unsigned long sbx_pool_stale(void)
{
	unsigned long n;

	pthread_mutex_lock(&mu);
	n = stale;
	pthread_mutex_unlock(&mu);
	return n;
}

unsigned long sbx_pool_served(void)
{
	unsigned long n;

	pthread_mutex_lock(&mu);
	n = served;
	pthread_mutex_unlock(&mu);
	return n;
}

int tg_sandbox_pool_ready(char *why, size_t n)
{
	int k;

	pthread_mutex_lock(&mu);
	k = broken ? -1 : nready;
	if (why && n)
		snprintf(why, n, "%.250s", last_err);
	pthread_mutex_unlock(&mu);
	return k;
}
