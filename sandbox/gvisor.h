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
int sbx_gvisor_run(tg_run_result **out, const tg_sandbox_opts *o, const char *real, int elf);

#endif
