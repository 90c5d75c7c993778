#!/bin/sh
# bench/replication/run.sh BUILD_DIR: the figures of issue 18 (bench.py does
# the work; see there). TG_BENCH_PULL_VERSIONS (default 20), TG_BENCH_ROUNDS
# (default 3 for part 1, x10 for part 2), TG_BENCH_TOOLS (default 1000).
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/bench.py" "$build/cli/toolgate" "$(cd "$here/../.." && pwd)"
