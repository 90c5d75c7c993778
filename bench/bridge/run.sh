#!/bin/sh
# bench/bridge/run.sh BUILD_DIR: the tool bridge's per-call overhead. A
# program in the real sandbox makes 20 bridged calls to a trivial
# registered tool (echo0), timing each from its side; the same tool is
# called directly through the same in-process call path
# (tg_registry_call). Printed: median and p99 of both, the overhead per
# call and the ratio. Target: overhead <= 1 ms per call (a file-polling
# bridge pays 20 ms or more). TG_BENCH_RUNS (default 10) sets the runs of
# 20 calls. POOL=N: every sandbox from a pool of N, as in `toolgate serve`.
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${TG_BENCH_RUNS:-10}
work=$(mktemp -d /tmp/tg_bench_bridge.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "-- bridged calls vs direct calls of the same trivial tool, $runs runs of 20"
"$build/bench/bridge/bench_bridge" "$work/home" "$build/bench/bridge/prog/bench_bridge_prog" "$runs"
