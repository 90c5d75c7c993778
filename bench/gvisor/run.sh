#!/bin/sh
# bench/gvisor/run.sh BUILD_DIR: what the gVisor backend costs a call, end
# to end through `toolgate call`: in one home, word_count (examples/) on the
# native sandbox and the same tool under another name put under gVisor by
# `toolgate backend NAME gvisor`, called alternately RUNS times each (30) by
# bench_sandbox_ab (bench/sandbox/ab.c: interleaved, so that a drifting load
# hits both alike): median, quartiles and p99 of each, and the ratio. Needs
# root and runsc (doctor's gvisor item); says so and exits 0 otherwise.
set -eu
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
tg=$build/cli/toolgate
ab=$build/bench/sandbox/bench_sandbox_ab
runs=${RUNS:-30}
[ -x "$ab" ] || { echo "bench/gvisor: build $ab first" >&2; exit 2; }
h=$(mktemp -d)
trap 'rm -rf "$h"' EXIT
"$tg" --home "$h/home" init >/dev/null
if ! "$tg" --home "$h/home" doctor 2>&1 | grep -q '^ok    gvisor'; then
	echo "bench/gvisor: skipped: $("$tg" --home "$h/home" doctor 2>&1 | grep gvisor)"
	exit 0
fi
mkdir "$h/wc_gvisor"
cp "$src/examples/word_count/tool.c" "$h/wc_gvisor/"
sed 's/"name": "word_count"/"name": "wc_gvisor"/' "$src/examples/word_count/tool.json" >"$h/wc_gvisor/tool.json"
"$tg" --home "$h/home" create "$src/examples/word_count" >/dev/null
"$tg" --home "$h/home" create "$h/wc_gvisor" >/dev/null
"$tg" --home "$h/home" backend wc_gvisor gvisor >/dev/null
args='{"text":"one two three\nfour five"}'
[ "$("$tg" --home "$h/home" call word_count "$args")" = "$("$tg" --home "$h/home" call wc_gvisor "$args")" ] ||
	{ echo "bench/gvisor: the two backends answer differently" >&2; exit 1; }
echo "toolgate call word_count, $runs runs each, interleaved (A native, B gVisor; ms):"
"$ab" "$runs" "$tg" --home "$h/home" call word_count "$args" :: \
	"$tg" --home "$h/home" call wc_gvisor "$args" | sed 's/^/  /'
