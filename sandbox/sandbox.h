/*
 * sandbox/sandbox.h: the public interface of the isolation module.
 *
 * tg_sandbox_run() runs one program with no network, in fresh user, pid,
 * mount, net, ipc, uts and cgroup namespaces, pivoted into an empty tmpfs
 * root, under a default-deny seccomp filter, rlimits, cgroup limits, a
 * wall-clock timeout and an output cap. tg_sandbox_build() runs the compiler
 * under the same kind of profile (toolchain bound read-only) to turn one C
 * source into a static, hardened binary.
 *
 * Only sandbox/ includes seccomp.h.
 */
#ifndef TG_SANDBOX_H
#define TG_SANDBOX_H

#include "common/common.h"

typedef enum tg_reason {
	TG_REASON_EXITED = 0,     /* exited on its own (see exit_code) */
	TG_REASON_SIGNALED,       /* killed by a signal it raised or got (see signal) */
	TG_REASON_TIMEOUT,        /* wall-clock timeout */
	TG_REASON_CPU,            /* RLIMIT_CPU */
	TG_REASON_MEMORY,         /* memory limit (cgroup OOM or RLIMIT_AS) */
	TG_REASON_OUTPUT_LIMIT,   /* stdout+stderr cap exceeded */
	TG_REASON_FILE_SIZE,      /* RLIMIT_FSIZE */
	TG_REASON_SECCOMP,        /* killed by the seccomp filter (see syscall) */
	TG_REASON_SETUP,          /* the sandbox could not be set up */
	TG_REASON_BRIDGE_PROTOCOL, /* the peer of fd 3 hung up (shutdown): the
				    * caller serving it ended the run */
	TG_REASON_CANCELLED,      /* added: opts.cancel fired (the client
				   * cancelled the request) */
} tg_reason;

/* Added: which kernel runs the tool (docs/SANDBOX.md, "gVisor backend"). */
typedef enum tg_sandbox_backend {
	TG_SANDBOX_NATIVE = 0,    /* namespaces + seccomp on the host kernel */
	TG_SANDBOX_GVISOR,        /* gVisor's runsc (ptrace platform): static
				   * tools without fd 3, workspace or threads;
				   * anything else is refused */
} tg_sandbox_backend;

typedef struct tg_sandbox_opts {
	const char *program;       /* host path of the program to run */
	const char *const *argv;   /* argv inside (NULL: { basename, NULL }) */
	const char *stdin_data;    /* may be NULL */
	size_t stdin_len;
	uint32_t timeout_ms;       /* 0 = 2000 */
	uint32_t memory_mb;        /* 0 = 64 */
	uint32_t output_kb;        /* cap on stdout+stderr, 0 = 1024 */
	uint32_t tmp_mb;           /* size of the /tmp tmpfs, 0 = 16 */
	uint32_t max_procs;        /* pids limit, 0 = 1 (no fork); threads count */
	uint32_t max_files;        /* RLIMIT_NOFILE, 0 = 32 */
	const char *workspace;     /* host folder bound at /workspace, or NULL */
	int workspace_write;       /* bind it writable */
	int dynamic;               /* bind the system library folders read-only */
	uint32_t cpu_percent;      /* added: CPU share through the cgroup cpu
				    * controller, 100 = one core; 0 = none */
	const tg_cancel *cancel;   /* added: when it fires, the run is killed
				    * (reason cancelled); NULL: never */
	int fd3;                   /* > 0: a socket the program receives as fd 3
				    * (the bridge; the sandbox knows nothing of
				    * what flows). When its peer shuts it down
				    * (POLLHUP) the run is killed with reason
				    * bridge_protocol. <= 0: fd 3 stays closed. */
	uint32_t cpu_s;            /* added: RLIMIT_CPU in seconds (reason cpu),
				    * 0 = the timeout's whole seconds + 1 */
	tg_sandbox_backend backend; /* added: 0 = native */
} tg_sandbox_opts;

typedef struct tg_run_result {
	tg_reason reason;
	int exit_code;             /* valid when reason == EXITED, else -1 */
	int signal;                /* the signal that ended it, else 0 */
	char syscall[32];          /* with SECCOMP: the syscall's name */
	char *out;                 /* captured stdout (NUL-terminated) */
	size_t out_len;
	char *err;                 /* captured stderr (NUL-terminated) */
	size_t err_len;
	uint64_t wall_ms;
	uint64_t cpu_ms;
	uint64_t max_rss_kb;
	int cgroups;               /* added: 1 when cgroup memory and pids limits
				    * applied, 0 when the run had rlimits only
				    * (not root, no controllers) */
	int landlock;              /* added: 1 when writes were confined to /tmp
				    * (and a writable workspace) by Landlock, 0
				    * when the kernel has no Landlock (device
				    * nodes are then writable) or a build */
	int cpu_limited;           /* added: 1 when cpu_percent was applied
				    * through a cgroup cpu controller */
	int timens;                /* added: 1 when the run had its own time
				    * namespace (monotonic and boot clocks start
				    * near 0), 0 when the kernel has none */
} tg_run_result;

/* 0 with a result for any outcome of the program (exit, kill, timeout...);
 * a negative code only when the sandbox itself failed (TG_ERR_UNAVAILABLE
 * when the kernel refuses namespaces). */
int tg_sandbox_run(tg_run_result **out, const tg_sandbox_opts *o);
void tg_run_result_free(tg_run_result *r);
/* "exited", "signaled", "timeout", "cpu", "memory", "output_limit",
 * "file_size", "seccomp", "setup", "bridge_protocol". */
const char *tg_reason_name(tg_reason r);
/* Added: "SIGSEGV", "SIGABRT", ... ("SIGRTMIN+n"; NULL for 0 or unknown). */
const char *tg_signal_name(int sig);
/* The `sandbox exec --json` shape (docs/CONTRACTS.md). */
int tg_run_result_to_json(json_t **out, const tg_run_result *r);

typedef struct tg_build_opts {
	const char *source;        /* the C source text */
	size_t source_len;
	const char *sdk_include_dir; /* host folder bound read-only as the SDK
				      include dir (holding toolgate/tool.h) */
	const char *out_dir;       /* host folder that receives tool.o and tool */
	uint32_t timeout_ms;       /* 0 = 30000 */
	uint32_t memory_mb;        /* 0 = 512 */
	uint32_t cpu_percent;      /* CPU share of the compiler (100 = one
				    * core); 0 = none */
	const tg_cancel *cancel;   /* kills the compiler when it fires */
	uint64_t max_output_bytes; /* RLIMIT_FSIZE of the compiler and the
				    * linker: no file they write (tool.o,
				    * tool) grows past it; 0 = the tmpfs */
} tg_build_opts;

typedef struct tg_build_result {
	int ok;                    /* 1 when both files were produced */
	char *object_path;         /* out_dir/tool.o (for tg_analyze_object) */
	char *binary_path;         /* out_dir/tool: static, hardened */
	char *log;                 /* compiler diagnostics (capped) */
	tg_run_result *run;        /* how the compiler run ended */
	int output_limit;          /* a step was stopped at max_output_bytes */
} tg_build_result;

int tg_sandbox_build(tg_build_result **out, const tg_build_opts *o);
void tg_build_result_free(tg_build_result *r);
/* The fingerprint (sha256 hex) of every input of tg_sandbox_build other
 * than the source: the compiler (resolved path and file identity), its flags,
 * the link commands and environment, the toolchain files (cc1, as, ld,
 * libc.a, libm.a, start files) and the bytes of every header under
 * sdk_include_dir (NULL: none). Computed once per process and SDK folder. */
int tg_sandbox_build_inputs(char out[65], const char *sdk_include_dir);

/* Added: in a long-lived process (the MCP server), on = 1 keeps one fresh
 * network namespace made ahead, in a background thread after each run, so
 * that the next run does not wait for it (root only; each namespace still
 * serves one run). on = 0 stops that and drops the spare. As root it also
 * makes the prepared mount tree on the first run rather than the second
 * (sandbox/mnt_template.c). */
void tg_sandbox_prepare(int on);

/* Added: sandboxes made ahead, for a long-lived process (toolgate serve;
 * docs/SANDBOX.md, "The pool"). Keeps up to n (at most 8) children fully set
 * up (namespaces, root, cgroup slot, rlimits, dropped credentials) waiting
 * for one run each; tg_sandbox_run then serves a static tool without
 * workspace whose limits are within ceilings (memory_mb, max_procs,
 * max_files at most; tmp_mb equal; NULL: the defaults) from the pool, and
 * anything else (or an empty pool) as before. n = 0 or stop: no pool. */
int tg_sandbox_pool_start(unsigned n, const tg_sandbox_opts *ceilings);
void tg_sandbox_pool_stop(void);
/* Ready entries now, or -1 when making one failed (why says why; runs then
 * take the ordinary path). */
int tg_sandbox_pool_ready(char *why, size_t n);

/* Added, gVisor: the path of runsc (TG_RUNSC, else PATH) or
 * TG_ERR_UNAVAILABLE saying it is not installed. */
int tg_sandbox_runsc(char *path, size_t n);
/* Added, gVisor: 0 when `runsc --network=none --platform=P do /bin/true`
 * (a private state folder, 20 s at most) exited 0, *ms its wall time,
 * platform (n bytes) P; else TG_ERR_UNAVAILABLE saying why (doctor). */
int tg_sandbox_gvisor_available(uint64_t *ms, char *platform, size_t n);
/* Added, gVisor: the runsc platform runs use ("kvm" or "ptrace", n bytes)
 * and why (wn bytes; why may be NULL): TG_GVISOR_PLATFORM, no usable
 * /dev/kvm, a cached answer, or a KVM probe bounded to 5 s (nested KVM may
 * hang), cached per boot (docs/SANDBOX.md, "Platform"). */
int tg_sandbox_gvisor_platform(char *name, size_t n, char *why, size_t wn);

/* 0 if this machine can run the sandbox, else TG_ERR_UNAVAILABLE saying why. */
int tg_sandbox_available(void);

/* Added: *out = 1 when the ELF file at path has a PT_INTERP (a dynamic
 * program: run it with opts.dynamic = 1); TG_ERR_INVALID if not a 64-bit ELF. */
int tg_sandbox_elf_dynamic(int *out, const char *path);
/* Added: 1 when runs get cgroup memory and pids limits, 0 when they degrade
 * to rlimits only (not root, no controllers); why (may be NULL) says which. */
int tg_sandbox_cgroups(char *why, size_t n);
/* Added: 1 when runs get a CPU share of percent through a cgroup cpu
 * controller (v2 cpu.max or v1 cpu.cfs_quota_us), 0 when there is none;
 * why (may be NULL) says which. */
int tg_sandbox_cpu_limit(char *why, size_t n, uint32_t percent);
/* Added: 1 when runs start from a mount tree prepared once per process
 * (root in the initial user namespace: sandbox/mnt_template.c), 0 when each
 * run copies the host's mounts and pivots (not root, TG_SANDBOX_TEMPLATE=0,
 * or a template could not be made or used); why (may be NULL) says which. */
int tg_sandbox_mount_template(char *why, size_t n);

/* Added: load the parse profile's seccomp filter (sandbox/filter.c) into
 * every thread of the calling process, with no_new_privs: for the
 * analyzer's parse child, once libclang is loaded (cli/main.c hands it to
 * tg_analyze_main as its confinement hook). 0, or TG_ERR_UNAVAILABLE. */
int tg_sandbox_confine_parse(void);

#endif
