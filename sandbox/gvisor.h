/*
 * sandbox/gvisor.h: the gVisor backend's own internal interface (docs/
 * SANDBOX.md, "gVisor backend"). gvisor_spec.c writes a run's OCI bundle,
 * gvisor.c runs runsc on it and supervises the run as run.c does a native
 * one; sandbox.c hands it tg_sandbox_run's calls with backend = gvisor.
 */
#ifndef TG_SANDBOX_GVISOR_H
#define TG_SANDBOX_GVISOR_H

#include "sandbox/internal.h"

#define SBX_GVISOR_DIR 256
/* What the gVisor sandbox's own processes (runsc, its sentry and gofer)
 * take of the run's memory cgroup, on top of the tool's memory_mb
 * (a trivial run peaks at 17 MB in all; a tool under 64 MB reaches 68:
 * docs/SANDBOX.md, "gVisor backend"). */
#define SBX_GVISOR_OVERHEAD_MB 20u
/* The bridge shim (sandbox/shim/shim.c), embedded at build time: the
 * first program of a bridged run (/shim /tool ARGS). */
extern const unsigned char sbx_shim_elf[];
extern const size_t sbx_shim_elf_len;

/* Make the private bundle folder dir (a fresh mkdtemp under $TMPDIR or
 * /tmp) for spec s: rootfs/tool, state/, config.json. On failure dir may
 * name a half-made folder ("" when none) for the caller to remove. */
int sbx_gvisor_bundle(char dir[SBX_GVISOR_DIR], const struct sbx_spec *s, uint64_t as_bytes);
/* Run spec s (tool_src, argv, limits, stdin) under runsc. */
int sbx_gvisor_execute(tg_run_result **out, const struct sbx_spec *s);
/* What the program at a run's path is (sandbox.c reads its ELF header). */
enum { SBX_ELF_STATIC = 0, SBX_ELF_DYNAMIC, SBX_ELF_NOT };
/* tg_sandbox_run with backend = gvisor, for the program at real (resolved
 * host path; elf: SBX_ELF_*): refuses (TG_ERR_UNAVAILABLE) what runsc
 * cannot hold; a program that is not a static ELF file ends with reason
 * setup, as a native exec that fails. */
/* `runsc --platform=P do /bin/true` in a private state folder, killed
 * (with what it started) after limit_ms; 0 when it exited 0; *ms its wall
 * time (gvisor_platform.c). */
int sbx_runsc_true(const char *runsc, const char *platform, uint64_t limit_ms, uint64_t *ms);
/* The bridge of a run under gVisor (gvisor_relay.c): a listener at
 * DIR/rootfs/bridge.sock, its one connection from the shim, and two bounded
 * buffers between it and fd3. */
struct pollfd;
struct sbx_relay {
	int lis, c, fd3;
	int i_lis, i_c, i_fd3;     /* indexes in the poll set, -1: none */
	char *up, *down;           /* container -> fd3, fd3 -> container */
	size_t ulen, uoff, dlen, doff;
	int c_eof, f_eof, up_shut, down_shut;
	int ready;                 /* the shim's byte came: its set-up held */
};
int sbx_relay_open(struct sbx_relay *r, const char *dir, int fd3);
void sbx_relay_close(struct sbx_relay *r);
/* Add the relay's descriptors to the poll set p (room for 3); returns how many. */
int sbx_relay_poll(struct sbx_relay *r, struct pollfd *p);
/* After poll: accept, move bytes; -1 when fd 3's peer hung up. */
int sbx_relay_step(struct sbx_relay *r, const struct pollfd *p);
/* After the run: take the shim's ready byte if the loop had no turn to. */
void sbx_relay_finish(struct sbx_relay *r);
int sbx_gvisor_run(tg_run_result **out, const tg_sandbox_opts *o, const char *real, int elf);

#endif
