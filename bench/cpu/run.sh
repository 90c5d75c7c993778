#!/bin/sh
# bench/cpu/run.sh BUILD_DIR: the CPU behind one sandboxed call (bench/cpu/
# cpu.py: serve with its descendants alive and reaped, kernel threads, the
# machine) next to a bare spawn of the same tool binary in the same run,
# N (default 2000) calls; TRANSPORT=stdio (default), http (serve --http,
# bench/cpu/httpleg.py) or both; SESSIONS set (e.g. 32): calls/s with that
# many stdio servers, or HTTP sessions of one server. BASE=OTHER_TOOLGATE puts an earlier build beside it.
# PERF=FILE records a profile that bench/cpu/stages.py splits into stages.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/cpu.py" "$build/cli/toolgate" "${N:-2000}"
