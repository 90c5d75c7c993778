#!/bin/sh
# bench/verify/run.sh BUILD_DIR [OTHER_TOOLGATE]: `toolgate verify` on a home
# of 2,000 tools (issue 30; target 100 ms wall, no check skipped). The home
# is made by bench/growth's bench_growth (2,000 active tools and one tool
# "hist" with 2,000 versions, committed to the store as the pipeline commits
# them and indexed by the registry's own re-index; verify passes on it),
# then measured twice: packed by `toolgate gc` (what a real home holds: a
# create packs past pack_loose_objects, 1000) and with every object loose
# (16,000 object files). measure.py runs `verify --json` TG_BENCH_VERIFY_RUNS
# times (default 30) per binary and home, the binaries interleaved (an
# OTHER_TOOLGATE, e.g. an earlier build, for a before/after in one run; an
# installed layout, since a copied binary finds the SDK beside itself), and
# prints the median and p99 of wall time and of CPU (user+sys, from
# getrusage) in ms, with the load average at the start and end.
# TG_BENCH_VERIFY_TOOLS changes the tool count.
set -eu
build=$(cd "${1:-build}" && pwd)
other=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
tools=${TG_BENCH_VERIFY_TOOLS:-2000}
runs=${TG_BENCH_VERIFY_RUNS:-30}
tg=$build/cli/toolgate
work=$(mktemp -d /tmp/tg_bench_verify.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/bench/growth/bench_growth" "$work/loose" "$tools" "$tools" >/dev/null
cp -a "$work/loose" "$work/packed"
"$tg" --home "$work/packed" gc >/dev/null
for h in loose packed; do
	"$tg" --home "$work/$h" verify >/dev/null || { echo "bench/verify: verify fails on the $h home"; exit 1; }
done
echo "verify, $tools tools + one tool of $tools versions, $runs runs each (ms)"
python3 "$here/measure.py" "$runs" "$work/packed" "$work/loose" -- "$tg" ${other:+"$other"}
