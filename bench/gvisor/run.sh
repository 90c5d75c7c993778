#!/bin/sh
# bench/gvisor/run.sh BUILD_DIR: what the gVisor backend costs, in one run,
# each pair interleaved RUNS times (30) so that a drifting load hits both
# alike (median, quartiles, p99, ratio):
#  1. the sandbox alone: one static program (the attack corpus's
#     echo_stdin) under `toolgate sandbox exec` (native) and under bubblewrap
#     (`bwrap --unshare-all`, the usual light sandbox; apt-get install
#     bubblewrap; the pair is left out, saying so, without it);
#  2. `toolgate call`: in one home, word_count (examples/) on the native
#     sandbox and the same tool under another name put under gVisor by
#     `toolgate backend NAME gvisor` (bench_sandbox_ab, bench/sandbox/ab.c);
#  3. MCP: the same two tools called through one `toolgate serve` over stdio
#     (mcp.py).
# The platform gVisor uses (kvm or ptrace) is doctor's. Needs root and
# runsc (doctor's gvisor item); says so and exits 0 otherwise.
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
echo "gVisor: $("$tg" --home "$h/home" doctor 2>&1 | sed -n 's/^ok    gvisor *//p')"
prog=$build/tests/sandbox/attacks/attack_echo_stdin
if [ ! -x "$prog" ]; then
	echo "sandbox alone: left out ($prog not built)"
elif ! command -v bwrap >/dev/null; then
	echo "sandbox alone: left out (no bwrap: apt-get install bubblewrap)"
else
	echo "sandbox alone: a static program, $runs runs each, interleaved (A toolgate sandbox exec, B bwrap --unshare-all; ms):"
	"$ab" "$runs" "$tg" --home "$h/home" sandbox exec -- "$prog" :: \
		"$(command -v bwrap)" --unshare-all --die-with-parent --new-session \
		--ro-bind "$prog" /tool --dev /dev --proc /proc --tmpfs /tmp /tool | sed 's/^/  /'
fi
echo "toolgate call word_count, $runs runs each, interleaved (A native, B gVisor; ms):"
"$ab" "$runs" "$tg" --home "$h/home" call word_count "$args" :: \
	"$tg" --home "$h/home" call wc_gvisor "$args" | sed 's/^/  /'
echo "MCP tools/call through one toolgate serve, $runs calls each, interleaved (A native, B gVisor; ms):"
python3 "$src/bench/gvisor/mcp.py" "$tg" "$h/home" "$runs" word_count wc_gvisor "$args" | sed 's/^/  /'
