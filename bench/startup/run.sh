#!/bin/sh
# bench/startup/run.sh BUILD_DIR: what a command costs before it does
# anything: `toolgate --version` against /bin/true, interleaved in one run
# (hyperfine -N, no shell), as wall-clock medians and p99 and their ratio
# (target: 1.5x or less). Most of a dynamic binary's start-up is the
# loader relocating its libraries: libcrypto is loaded on first use
# (common/crypto.c), so commands that hash nothing do not relocate it.
# TG_BENCH_RUNS (default 1000) runs of each, in TG_BENCH_ROUNDS (default 3)
# alternating rounds.
set -eu
build=$(cd "${1:-build}" && pwd)
tg="$build/cli/toolgate"
runs=${TG_BENCH_RUNS:-1000}
rounds=${TG_BENCH_ROUNDS:-3}
command -v hyperfine >/dev/null 2>&1 || { echo "bench/startup: hyperfine missing (apt-get install -y hyperfine)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=0
while [ "$r" -lt "$rounds" ]; do
	hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/true.$r.json" /bin/true >/dev/null
	hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/version.$r.json" "$tg --version" >/dev/null
	r=$((r + 1))
done
python3 - "$tmp" "$rounds" <<'PY'
import json, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
def times(name):
    t = []
    for r in range(rounds):
        t += json.load(open(f"{tmp}/{name}.{r}.json"))["results"][0]["times"]
    t.sort()
    return t
def q(t, p):
    return t[min(len(t) - 1, int(p * len(t)))] * 1e3
base, ver = times("true"), times("version")
for label, t in (("/bin/true", base), ("toolgate --version", ver)):
    print(f"{label:22s} median {q(t, 0.5):.3f} ms  p99 {q(t, 0.99):.3f} ms  (n={len(t)})")
print(f"toolgate --version / /bin/true: median {q(ver, 0.5) / q(base, 0.5):.2f}x, "
      f"p99 {q(ver, 0.99) / q(base, 0.99):.2f}x (target 1.5x)")
PY
