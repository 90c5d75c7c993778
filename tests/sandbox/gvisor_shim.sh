#!/bin/sh
# tests/sandbox/gvisor_shim.sh SHIM: the bridge shim's failures (sandbox/
# shim/shim.c), run on the host where no /bridge.sock exists: each failed
# step says itself on stderr and exits 110 + step (shim.h), and nothing is
# executed.
set -u
shim=$1
. "$(dirname "$0")/check.sh"
[ -e /bridge.sock ] && { echo "SKIP: /bridge.sock exists on this host"; exit 77; }
out=$("$shim" 2>&1); rc=$?
check "no tool: step args" "110 toolgate: sandbox: bridge shim: usage: /shim /tool ARGS: 22" "$rc $out"
out=$("$shim" /bin/echo executed 2>&1); rc=$?
check "no socket: step connect, nothing run" "112 toolgate: sandbox: bridge shim: connect /bridge.sock: 2" "$rc $out"
[ "$fails" -eq 0 ] || exit 1
