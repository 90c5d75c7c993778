/*
 * sandbox/shim/shim.h: what the bridge shim (shim.c) and the gVisor
 * backend that starts it (gvisor.c, gvisor_spec.c) agree on: where the
 * bridge's socket is in the container, the byte that says the shim's
 * set-up held, and the shim's exit codes on a failed step.
 */
#ifndef TG_SANDBOX_SHIM_H
#define TG_SANDBOX_SHIM_H

#define SBX_SHIM_SOCKET "/bridge.sock"
#define SBX_SHIM_PATH "/shim"
#define SBX_SHIM_READY 'R'
/* exit code of a failed step: SBX_SHIM_EXIT + step */
#define SBX_SHIM_EXIT 110
enum {
	SBX_SHIM_STEP_ARGS = 0,
	SBX_SHIM_STEP_SOCKET,
	SBX_SHIM_STEP_CONNECT,
	SBX_SHIM_STEP_FD3,
	SBX_SHIM_STEP_NNP,
	SBX_SHIM_STEP_FILTER,
	SBX_SHIM_STEP_EXEC,
};

#endif
