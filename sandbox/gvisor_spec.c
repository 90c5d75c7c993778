/*
 * sandbox/gvisor_spec.c: the OCI bundle of one gVisor run (gvisor.c runs
 * it). A private folder (mode 0700) holds config.json, an empty state folder
 * for runsc's --root and rootfs/ with a copy of the program at /tool (mode
 * 0555) and nothing else. The spec keeps the native contract where runsc
 * can: uid/gid 65534, no capability, no_new_privs, an empty environment,
 * working folder /tmp (a tmpfs of tmp_mb, nosuid, nodev, noexec), the root
 * read-only, empty read-only tmpfs over the /proc and /sys runsc always
 * mounts, hostname toolgate, every native rlimit (sbx_rlimit_value) applied
 * by gVisor's own kernel, and OCI seccomp rules (runsc --oci-seccomp):
 * socket and socketpair refused (a bridged run: socket(AF_UNIX) allowed
 * for the shim, /shim in the root and first in args), a few calls the native filter kills killed
 * (killed_calls), and W^X: mmap, mprotect, pkey_mprotect asking for
 * PROT_EXEC killed (wx_rule).
 */
#include "sandbox/internal.h"
#include "sandbox/gvisor.h"
#include "sandbox/shim/shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_tool(const char *src, const char *dst)
{
	_cleanup_close_ int in = open(src, O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int out = -1;
	struct stat st;
	off_t off = 0;

	if (in < 0 || fstat(in, &st) < 0)
		return tg_error_errno(TG_ERR_NOTFOUND, errno, "gvisor: %s", src);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0555);
	if (out < 0)
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: %s", dst);
	while (off < st.st_size) {
		ssize_t k = sendfile(out, in, &off, (size_t)(st.st_size - off));
		if (k <= 0)
			return tg_error_errno(TG_ERR_IO, k < 0 ? errno : EIO,
					      "gvisor: copy of %s", src);
	}
	return 0;
}

static json_t *rlimits_json(const struct sbx_spec *s, uint64_t as_bytes)
{
	json_t *a = json_array();
	int i;

	/* all of them, as the native child sets them: an rlimit the spec
	 * leaves out is gVisor's default (RLIMIT_SIGPENDING 0, RLIMIT_RSS
	 * unlimited), not the contract's */
	for (i = 0; a && i < RLIM_NLIMITS; i++) {
		json_int_t v = (json_int_t)sbx_rlimit_value(s, i, as_bytes);
		if (json_array_append_new(a, json_pack("{s:s,s:I,s:I}", "type", sbx_rlimit_names[i],
						       "hard", v, "soft", v)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *mounts_json(const struct sbx_spec *s)
{
	char tmp[48];

	snprintf(tmp, sizeof(tmp), "size=%um", s->tmp_mb);
	return json_pack("[{s:s,s:s,s:s,s:[s,s,s,s,s]},{s:s,s:s,s:s,s:[s,s,s,s,s,s]},"
			 "{s:s,s:s,s:s,s:[s,s,s,s,s,s]}]",
			 "destination", "/tmp", "type", "tmpfs", "source", "tmpfs", "options",
			 "nosuid", "nodev", "noexec", "mode=1777", tmp,
			 "destination", "/proc", "type", "tmpfs", "source", "tmpfs", "options",
			 "ro", "nosuid", "nodev", "noexec", "mode=0555", "size=4k",
			 "destination", "/sys", "type", "tmpfs", "source", "tmpfs", "options",
			 "ro", "nosuid", "nodev", "noexec", "mode=0555", "size=4k");
}

/* Calls the native filter kills and gVisor's kernel would answer: killed
 * here too (SCMP_ACT_KILL: this runsc has no KILL_PROCESS; a tool under
 * gVisor has one thread, so the thread is the process). */
static json_t *killed_calls(void)
{
	static const char *const names[] = {
		"ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup",
		"io_uring_enter", "io_uring_register", "unshare", "setns", "mount", "umount2",
		"pivot_root", "chroot", "bpf", "perf_event_open", "keyctl", "add_key",
		"request_key", "userfaultfd",
	};
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < sizeof(names) / sizeof(names[0]); i++)
		if (json_array_append_new(a, json_string(names[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a ? json_pack("{s:o,s:s}", "names", a, "action", "SCMP_ACT_KILL") : NULL;
}

/* W^X as the native filter has it: a mapping or protection change asking
 * for PROT_EXEC (arg 2) kills the tool; the program itself is mapped by
 * gVisor's loader, not by a call of the tool. */
static json_t *wx_rule(void)
{
	return json_pack("{s:[s,s,s],s:s,s:[{s:i,s:i,s:i,s:s}]}", "names", "mmap", "mprotect",
			 "pkey_mprotect", "action", "SCMP_ACT_KILL", "args", "index", 2, "value",
			 PROT_EXEC, "valueTwo", PROT_EXEC, "op", "SCMP_CMP_MASKED_EQ");
}

/* socket refused; in a bridged run all but AF_UNIX, which the shim needs
 * for its one connection to /bridge.sock before its own filter refuses
 * every socket call (sandbox/shim/shim.c) */
static json_t *socket_rule(const struct sbx_spec *s)
{
	if (s->fd3 <= 0)
		return json_pack("{s:[s],s:s,s:i}", "names", "socket", "action", "SCMP_ACT_ERRNO",
				 "errnoRet", EACCES);
	return json_pack("{s:[s],s:s,s:i,s:[{s:i,s:i,s:s}]}", "names", "socket", "action",
			 "SCMP_ACT_ERRNO", "errnoRet", EACCES, "args", "index", 0, "value",
			 AF_UNIX, "op", "SCMP_CMP_NE");
}

/* rootfs/shim: the embedded shim, mode 0555 */
static int write_shim(const char *dst)
{
	_cleanup_close_ int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0555);
	size_t off = 0;

	if (out < 0)
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: %s", dst);
	while (off < sbx_shim_elf_len) {
		ssize_t k = write(out, sbx_shim_elf + off, sbx_shim_elf_len - off);
		if (k <= 0)
			return tg_error_errno(TG_ERR_IO, k < 0 ? errno : EIO, "gvisor: %s", dst);
		off += (size_t)k;
	}
	return 0;
}

static json_t *spec_json(const struct sbx_spec *s, uint64_t as_bytes)
{
	json_t *args = json_array(), *caps, *j;
	size_t i = 1;

	/* runsc executes args[0]: the tool sees "/tool" as its argv[0]; a
	 * bridged run starts as /shim /tool ARGS (sandbox/shim/shim.c) */
	if (args && s->fd3 > 0 && json_array_append_new(args, json_string(SBX_SHIM_PATH)) < 0)
		json_decref(args), args = NULL;
	if (args && json_array_append_new(args, json_string("/tool")) < 0)
		json_decref(args), args = NULL;
	for (; args && s->argv[0] && s->argv[i]; i++)
		if (json_array_append_new(args, json_string(s->argv[i])) < 0)
			break;
	if (!args || (s->argv[0] && s->argv[i])) {
		json_decref(args);
		return NULL;
	}
	caps = json_pack("{s:[],s:[],s:[],s:[],s:[]}", "bounding", "effective", "inheritable",
			 "permitted", "ambient");
	j = json_pack("{s:s,s:{s:b,s:{s:i,s:i},s:o,s:[],s:s,s:o,s:o,s:b},s:{s:s,s:b},s:s,"
		      "s:o,s:{s:[{s:s},{s:s},{s:s},{s:s},{s:s}],s:{s:s,s:[s],s:[{s:[s],s:s,s:i}]}}}",
		      "ociVersion", "1.0.0", "process", "terminal", 0, "user", "uid", 65534, "gid",
		      65534, "args", args, "env", "cwd", "/tmp", "capabilities", caps, "rlimits",
		      rlimits_json(s, as_bytes), "noNewPrivileges", 1, "root", "path", "rootfs",
		      "readonly", 1, "hostname", "toolgate", "mounts", mounts_json(s), "linux",
		      "namespaces", "type", "pid", "type", "network", "type", "ipc", "type", "uts",
		      "type", "mount", "seccomp", "defaultAction", "SCMP_ACT_ALLOW",
		      "architectures", "SCMP_ARCH_X86_64", "syscalls", "names", "socketpair",
		      "action", "SCMP_ACT_ERRNO", "errnoRet", EACCES);
	if (j) {
		json_t *calls = json_object_get(json_object_get(json_object_get(j, "linux"),
								"seccomp"), "syscalls");
		if (json_array_append_new(calls, socket_rule(s)) < 0 ||
		    json_array_append_new(calls, killed_calls()) < 0 ||
		    json_array_append_new(calls, wx_rule()) < 0) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

int sbx_gvisor_bundle(char dir[SBX_GVISOR_DIR], const struct sbx_spec *s, uint64_t as_bytes)
{
	char path[SBX_GVISOR_DIR + 32];
	_cleanup_json_ json_t *j = NULL;
	const char *base = getenv("TMPDIR");
	int r;

	snprintf(dir, SBX_GVISOR_DIR, "%s/tg-gvisor-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: private folder");
	}
	snprintf(path, sizeof(path), "%s/rootfs", dir);
	if (mkdir(path, 0755) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: %s", path);
	snprintf(path, sizeof(path), "%s/state", dir);
	if (mkdir(path, 0700) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: %s", path);
	snprintf(path, sizeof(path), "%s/rootfs/tool", dir);
	r = copy_tool(s->tool_src, path);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/rootfs%s", dir, SBX_SHIM_PATH);
	if (s->fd3 > 0 && (r = write_shim(path)) < 0)
		return r;
	j = spec_json(s, as_bytes);
	if (!j)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/config.json", dir);
	if (json_dump_file(j, path, JSON_COMPACT) < 0)
		return tg_error_set(TG_ERR_IO, "gvisor: cannot write %s", path);
	return 0;
}
