/*
 * sandbox/sandbox.c: the public entry points for running a program
 * (tg_sandbox_run), checking the machine (tg_sandbox_available), reading an
 * ELF header (tg_sandbox_elf_dynamic) and knowing whether runs get cgroup
 * limits (tg_sandbox_cgroups); the spec of a run is filled by spec.c. A
 * run's root holds only a copy of the program at /tool, /dev/{null,zero,
 * urandom}, a capped /tmp, and on request the system library folders
 * (dynamic programs) or a workspace folder.
 */
#include "sandbox/internal.h"
#include "sandbox/gvisor.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

int tg_sandbox_elf_dynamic(int *out, const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int i;

	*out = 0;
	if (fd < 0)
		return tg_error_errno(TG_ERR_NOTFOUND, errno, "%s", path);
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return tg_error_set(TG_ERR_INVALID, "%s: not a 64-bit ELF file", path);
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		return tg_error_set(TG_ERR_INVALID, "%s: bad ELF program headers", path);
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return tg_error_set(TG_ERR_INVALID, "%s: truncated ELF file", path);
		if (ph.p_type == PT_INTERP) {
			*out = 1;
			break;
		}
	}
	return 0;
}

int sbx_run_with(tg_run_result **out, const tg_sandbox_opts *o, unsigned test_flags)
{
	static const char *const empty_env[] = { NULL };
	struct sbx_spec *s;
	const char *argv_default[2];
	const char *base;
	char real[PATH_MAX];
	struct stat st;
	int r;

	if (!out || !o || !o->program)
		return tg_error_set(TG_ERR_INVALID, "sandbox: no program");
	*out = NULL;
	/* gVisor binds the file itself (/bin/sh may be a link to a relative
	 * "dash"), and a relative name would be taken from the wrong folder
	 * later: both get the real path. A native run only opens an absolute
	 * name (the pool as a descriptor, child.c's copy to /tool), which
	 * follows links as realpath would: no readlink per component of a
	 * cached tool's path on every call. */
	if (o->backend == TG_SANDBOX_GVISOR || o->program[0] != '/') {
		if (!realpath(o->program, real))
			return tg_error_errno(TG_ERR_NOTFOUND, errno, "sandbox: %s", o->program);
	} else if (strlen(o->program) >= sizeof(real)) {
		return tg_error_set(TG_ERR_INVALID, "sandbox: %s: name too long", o->program);
	} else {
		snprintf(real, sizeof(real), "%s", o->program);
	}
	if (stat(real, &st) < 0)
		return tg_error_errno(TG_ERR_NOTFOUND, errno, "sandbox: %s", o->program);
	if (!S_ISREG(st.st_mode))
		return tg_error_set(TG_ERR_INVALID, "sandbox: %s: not a regular file", o->program);
	if (o->stdin_len > 0 && !o->stdin_data)
		return tg_error_set(TG_ERR_INVALID, "sandbox: stdin_len without stdin_data");
	if (o->backend == TG_SANDBOX_GVISOR) {
		int dyn = 0, elf = tg_sandbox_elf_dynamic(&dyn, real) < 0 ? SBX_ELF_NOT
				   : dyn ? SBX_ELF_DYNAMIC : SBX_ELF_STATIC;
		return sbx_gvisor_run(out, o, real, elf); /* gvisor.c */
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	sbx_spec_defaults(s, o);
	s->profile = o->dynamic ? SBX_PROFILE_RUN_DYNAMIC : SBX_PROFILE_RUN;
	s->test_flags = test_flags;
	s->exec_path = "/tool";
	s->display = o->program;
	base = strrchr(o->program, '/');
	base = base ? base + 1 : o->program;
	argv_default[0] = base;
	argv_default[1] = NULL;
	s->argv = o->argv && o->argv[0] ? o->argv : argv_default;
	s->envp = empty_env;
	s->stdin_data = o->stdin_data;
	s->stdin_len = o->stdin_len;
	s->fd3 = o->fd3 > 0 ? o->fd3 : 0;
	/* a static tool without workspace: from the pool when it is on (the
	 * program goes as a descriptor; the child has its /dev already) */
	if (!o->dynamic && !o->workspace) {
		r = sbx_pool_execute(out, s, real);
		if (r != 0) {
			free(s);
			return r < 0 ? r : 0;
		}
	}
	/* /tool is a copy in the run's root, not a bind: the program's inode,
	 * device and build time on the host stay outside (child.c, copy_tool) */
	s->tool_src = real;
	s->tool_size = (uint64_t)st.st_size;
	r = sbx_spec_bind_dev(s);
	if (r == 0 && o->dynamic)
		r = sbx_spec_bind_system(s);
	if (r == 0 && o->workspace)
		r = sbx_spec_bind(s, o->workspace, "/workspace",
				  o->workspace_write ? SBX_BIND_RW : 0);
	if (r == 0)
		r = sbx_execute(out, s, NULL);
	free(s);
	return r;
}

int tg_sandbox_run(tg_run_result **out, const tg_sandbox_opts *o)
{
	return sbx_run_with(out, o, 0);
}

int tg_sandbox_available(void)
{
	static const char *const argv[] = { "true", NULL };
	tg_sandbox_opts o;
	tg_run_result *res = NULL;
	const char *prog = NULL;
	int r;

	/* /bin/true is dynamic: this checks namespaces, mounts, seccomp end to end. */
	if (access("/usr/bin/true", X_OK) == 0)
		prog = "/usr/bin/true";
	else if (access("/bin/true", X_OK) == 0)
		prog = "/bin/true";
	else
		return tg_error_set(TG_ERR_UNAVAILABLE, "sandbox: no /bin/true to probe with");
	memset(&o, 0, sizeof(o));
	o.program = prog;
	o.argv = argv;
	o.dynamic = 1;
	r = tg_sandbox_run(&res, &o);
	if (r < 0)
		return r;
	if (res->reason != TG_REASON_EXITED || res->exit_code != 0) {
		r = tg_error_set(TG_ERR_UNAVAILABLE, "sandbox: probe run ended with %s%s%s",
				 tg_reason_name(res->reason), res->syscall[0] ? " " : "",
				 res->syscall);
	}
	tg_run_result_free(res);
	sbx_cgroup_sweep(); /* leftovers of SIGKILLed supervisors */
	return r;
}

int tg_sandbox_cgroups(char *why, size_t n)
{
	struct sbx_cgroup cg;
	int r = sbx_cgroup_create(&cg, 64ull << 20, 1);

	if (r == 0) {
		if (why && n)
			snprintf(why, n, "cgroup v%d memory and pids limits", cg.version);
		sbx_cgroup_destroy(&cg);
		return 1;
	}
	if (why && n)
		snprintf(why, n, "%s", cg.why);
	return 0;
}
