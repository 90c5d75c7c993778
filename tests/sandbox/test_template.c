/*
 * tests/sandbox/test_template.c: runs from a prepared mount tree
 * (sandbox/mnt_template.c, issue 31), as root. Two runs at once from one
 * template cannot see or reach each other (their /tmp, their /tool of
 * different inodes); nothing outside /tmp can be written (EROFS from the
 * read-only tree, EACCES for /tool, mode 0555, and, from Landlock, for
 * /dev/null); a run cannot
 * remount or unmount anything (its filter kills mount; without the filter
 * each call is refused); and the template itself, seen from the host by
 * entering its namespace, is the same before and after those attempts,
 * read-only at the mount and at the superblock. With TG_SANDBOX_TEMPLATE=0
 * (sandbox_template_off) no template is made and the same runs give the
 * same answers on the usual path. A process's first run takes the usual
 * path unless tg_sandbox_prepare is on (then a skeleton's first run makes
 * its template). A template a run cannot enter fails that run at the step
 * and sends the process's later runs down the usual path.
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"

#define WRITES_OUT                                                                         \
	"mark: ok\ntmp_others: 0\nmkdir /x: EROFS\ncreate /x: EROFS\nwrite /tool: EACCES\n" \
	"create /dev/x: EROFS\nwrite /dev/null: EACCES\n"

static int template_on(void)
{
	const char *e = getenv("TG_SANDBOX_TEMPLATE");
	return !(e && strcmp(e, "0") == 0);
}

/* One run of the probe alone: mode "write" (as a pair's run does) or
 * "remount"; flags SBX_TEST_*. */
static tg_run_result *probe(const char *mode, unsigned flags)
{
	const char *argv[] = { "tpl_probe", "a", mode, NULL };
	tg_sandbox_opts o;
	tg_run_result *r = NULL;

	memset(&o, 0, sizeof(o));
	o.program = ATTACK("tpl_probe");
	o.argv = argv;
	o.timeout_ms = 20000;
	assert_int_equal(sbx_run_with(&r, &o, flags), 0);
	return r;
}

/* stderr of a write probe: "tool DEV INO\nT0 T1\n" */
static void probe_facts(const tg_run_result *r, unsigned long *dev, unsigned long *ino,
			long long *t0, long long *t1)
{
	assert_int_equal(sscanf(r->err, "tool %lu %lu\n%lld %lld", dev, ino, t0, t1), 4);
}

/* What the template holds, seen from the host: a forked child enters its
 * namespace and lists / and /dev (name, mode, size, inode); we read its
 * mountinfo meanwhile. */
static char *template_view(int fd)
{
	static char buf[16384];
	int p[2], q[2];
	size_t n = 0;
	ssize_t k;
	pid_t pid;
	char path[64];
	FILE *f;
	int st;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(q), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static const char *const dirs[] = { "/", "/dev" };
		char line[512], c;
		size_t i;
		close(p[0]);
		close(q[1]);
		if (setns(fd, CLONE_NEWNS) != 0)
			_exit(3);
		for (i = 0; i < 2; i++) {
			DIR *d = opendir(dirs[i]);
			struct dirent *e;
			if (!d)
				_exit(4);
			while ((e = readdir(d))) {
				struct stat sb;
				snprintf(line, sizeof(line), "%s/%s", dirs[i], e->d_name);
				if (lstat(line, &sb) != 0)
					_exit(5);
				snprintf(line, sizeof(line), "%s/%s %o %lld %lu\n", dirs[i], e->d_name,
					 (unsigned)sb.st_mode, (long long)sb.st_size,
					 (unsigned long)sb.st_ino);
				if (write(p[1], line, strlen(line)) < 0)
					_exit(6);
			}
			closedir(d);
		}
		close(p[1]);
		(void)!read(q[0], &c, 1); /* until the mountinfo is read */
		_exit(0);
	}
	close(p[1]);
	close(q[0]);
	while ((k = read(p[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)k;
	close(p[0]);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	n += fread(buf + n, 1, sizeof(buf) - 1 - n, f);
	fclose(f);
	buf[n] = '\0';
	close(q[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return strdup(buf);
}

/* The root line of a mountinfo: read-only at the mount and at the
 * superblock. */
static void assert_root_ro(const char *view)
{
	const char *l = strstr(view, " / / ");
	const char *dash;

	assert_non_null(l);
	assert_int_equal(strncmp(l + 5, "ro,nosuid,nodev,noexec", 22), 0);
	dash = strstr(l, " - tmpfs tmpfs ro,");
	assert_non_null(dash);
	assert_true(strchr(l, '\n') > dash);
}

static int the_template(void)
{
	struct sbx_spec s;
	memset(&s, 0, sizeof(s));
	s.tool_src = ATTACK("tpl_probe");
	assert_int_equal(sbx_spec_bind_dev(&s), 0);
	return sbx_mnt_template_fd(&s);
}

static void template_isolation(void **state)
{
	unsigned long da, ia, db, ib;
	long long a0, a1, b0, b1;
	tg_run_result *ra, *rb;
	char *before = NULL, *after;
	int fd;

	(void)state;
	/* a process's first run takes the usual path (not prepared: a
	 * one-shot command would pay for the template and its own mounts);
	 * the second makes the template and starts from it */
	expect_exit(probe("write", 0), 0, WRITES_OUT);
	assert_int_equal(sbx_mnt_template_count(), 0);
	expect_exit(probe("write", 0), 0, WRITES_OUT);
	assert_int_equal(sbx_mnt_template_count(), template_on() ? 1 : 0);
	fd = the_template();
	if (template_on()) {
		assert_true(fd >= 0);
		before = template_view(fd);
		assert_root_ro(before);
	} else {
		assert_int_equal(fd, -1);
	}
	sbx_run_pair(ATTACK("tpl_probe"), "tpl_probe", "write", &ra, &rb);
	assert_int_equal(ra->reason, TG_REASON_EXITED);
	assert_int_equal(rb->reason, TG_REASON_EXITED);
	probe_facts(ra, &da, &ia, &a0, &a1);
	probe_facts(rb, &db, &ib, &b0, &b1);
	assert_true(da != db); /* each its own /tool (both held at once) */
	expect_exit(ra, 0, WRITES_OUT);
	expect_exit(rb, 0, WRITES_OUT);
	if (template_on()) {
		after = template_view(fd);
		assert_string_equal(before, after);
		free(after);
		free(before);
	}
}

/* Under tg_sandbox_prepare (serve) a skeleton's first run makes its
 * template: a dynamic program's (/usr and the links too), a second one. */
static void template_prepared(void **state)
{
	static const char *const argv[] = { "true", NULL };
	tg_sandbox_opts o;
	tg_run_result *r = NULL;

	(void)state;
	assert_int_equal(sbx_mnt_template_count(), template_on() ? 1 : 0);
	tg_sandbox_prepare(1);
	memset(&o, 0, sizeof(o));
	o.program = "/bin/true";
	o.argv = argv;
	o.dynamic = 1;
	assert_int_equal(tg_sandbox_run(&r, &o), 0);
	expect_exit(r, 0, "");
	assert_int_equal(sbx_mnt_template_count(), template_on() ? 2 : 0);
	tg_sandbox_prepare(0);
}

static void template_remount(void **state)
{
	tg_run_result *r;
	char *before = NULL, *after;
	int fd = the_template();

	(void)state;
	if (template_on())
		before = template_view(fd);
	r = probe("remount", 0);
	assert_int_equal(r->reason, TG_REASON_SECCOMP);
	assert_string_equal(r->syscall, "mount");
	assert_string_equal(r->out, "");
	tg_run_result_free(r);
	/* as if the filter missed mount: no capability, locked mounts */
	r = probe("remount", SBX_TEST_NO_SECCOMP);
	expect_exit(r, 0,
		    "remount / rw: EPERM\nremount sb rw: EPERM\numount /tool: EPERM\n"
		    "mount over /: EPERM\nmkdir /x: EROFS\n");
	if (template_on()) {
		after = template_view(fd);
		assert_string_equal(before, after);
		assert_root_ro(after);
		free(after);
		free(before);
	}
}

/* A template a run cannot enter (its descriptor made to name a network
 * namespace): that run fails at the step, naming it; the process takes the
 * usual path from then on, and the next run goes through. */
static void template_broken(void **state)
{
	const char *argv[] = { "tpl_probe", "a", "write", NULL };
	tg_sandbox_opts o;
	tg_run_result *r = NULL;

	(void)state;
	if (!template_on()) {
		assert_int_equal(sbx_mnt_template_test_break(), 0);
		return;
	}
	assert_int_equal(sbx_mnt_template_test_break(), 2);
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("tpl_probe");
	o.argv = argv;
	o.timeout_ms = 20000;
	assert_true(tg_sandbox_run(&r, &o) < 0);
	assert_null(r);
	assert_string_equal(tg_error_last()->message,
			    "sandbox: setns into the mount template: Invalid argument");
	assert_int_equal(sbx_mnt_template_count(), 0);
	assert_int_equal(the_template(), -1);
	expect_exit(probe("write", 0), 0, WRITES_OUT);
	expect_exit(probe("write", 0), 0, WRITES_OUT);
	assert_int_equal(sbx_mnt_template_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(template_isolation),
		cmocka_unit_test(template_remount),
		cmocka_unit_test(template_prepared),
		cmocka_unit_test(template_broken),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "sandbox_template: needs root (prepared trees are root's)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
