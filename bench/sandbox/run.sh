#!/bin/sh
# bench/sandbox/run.sh BUILD_DIR: per-run wall time of `toolgate sandbox
# exec` on a static hello program, side by side in one hyperfine run with
# the bare program, `unshare -n -U -r -m -p -f`, `bwrap --unshare-all` with
# equivalent binds, `toolgate --version` (the process start-up part of
# toolgate itself) and bench_sandbox_exec (the same run from an executable
# that links only the sandbox). Prints medians and ratios; RUNS=N for the
# count. Then bench_sandbox_loop: RUNS runs in one process (first run and
# steady state, as the registry runs tools).
set -eu
build=$(cd "${1:-build}" && pwd)
hello=$build/bench/sandbox/bench_sandbox_hello
tg=$build/cli/toolgate
runs=${RUNS:-300}
[ -x "$hello" ] || { echo "bench/sandbox: build $hello first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "bench/sandbox: hyperfine is missing" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
set -- -N --warmup 20 --runs "$runs" --export-csv "$out/r.csv" \
	-n bare "$hello" \
	-n "toolgate sandbox exec" "$tg sandbox exec -- $hello" \
	-n "toolgate --version" "$tg --version" \
	-n "sandbox-only exe" "$build/bench/sandbox/bench_sandbox_exec $hello"
if command -v unshare >/dev/null; then
	set -- "$@" -n "unshare -nUrmpf" "unshare -n -U -r -m -p -f $hello"
fi
if command -v bwrap >/dev/null; then
	set -- "$@" -n "bwrap --unshare-all" \
		"bwrap --unshare-all --die-with-parent --new-session --clearenv --hostname toolgate --ro-bind $hello /tool --dev /dev --tmpfs /tmp /tool"
fi
hyperfine "$@" >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
awk -F, 'NR > 1 { name[NR] = $1; med[NR] = $4 * 1000; if ($1 == "bare") bare = med[NR];
	if ($1 == "bwrap --unshare-all") bw = med[NR]; if ($1 == "toolgate sandbox exec") tg = med[NR];
	if ($1 == "toolgate --version") ver = med[NR]; n = NR }
END {
	printf "%-24s %10s %10s %10s\n", "command", "median ms", "x bare", "x bwrap"
	for (i = 2; i <= n; i++)
		printf "%-24s %10.2f %10.2f %10s\n", name[i], med[i], med[i] / bare,
			bw ? sprintf("%.2f", med[i] / bw) : "-"
	if (tg && ver)
		printf "sandbox part of toolgate sandbox exec (exec - --version - bare): %.2f ms\n",
			tg - ver - bare
}' "$out/r.csv"
loop=$build/bench/sandbox/bench_sandbox_loop
if [ -x "$loop" ]; then
	echo "in one process (bench_sandbox_loop $runs):"
	"$loop" "$runs" "$hello" | sed 's/^/  /'
fi
