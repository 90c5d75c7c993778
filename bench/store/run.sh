#!/bin/sh
# bench/store/run.sh BUILD_DIR: the store benchmark. TG_BENCH_STORE_SIZES
# (default 100,1000,10000) sets the tool counts; TMPDIR where the store goes.
set -eu
build=$(cd "${1:-build}" && pwd)
exec "$build/bench/store/bench_store" "${TG_BENCH_STORE_SIZES:-100,1000,10000}"
