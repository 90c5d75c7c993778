#!/bin/sh
# bench/registry/run.sh BUILD_DIR: the registry's end-to-end figures, each
# side by side with its baseline in the same run (hyperfine, medians):
#  1. `toolgate create` of a ~100-line SDK tool with 5 tests (vet, commit,
#     sandboxed build, object check, 5 sandboxed test runs, SQLite) against a
#     bare `gcc -O2 -static` of the same source. Every run submits a
#     different source (a counter in a comment), so no build is cached.
#     Target: create <= 2.5x the bare compile.
#  2. `toolgate call` of that tool against running its binary bare.
#     Target: call <= bare + 3 ms. Shown with the floors that explain it:
#     `toolgate --version` (process start: libclang/LLVM, libgit2 load) and
#     `toolgate sandbox exec` of the same binary (the sandbox alone); then
#     without a shell (-N), and inside one process (bench_registry_call).
#  3. tg_registry_open as the toolset grows (bench_registry_open): the store
#     fingerprint, the open that matches it (no libgit2, no re-index) and the
#     open that does not (libgit2 + the re-index check of every tool).
# TG_BENCH_RUNS (default 10 for create, 30 for call) sets the run counts;
# TG_BENCH_OPEN_TOOLS (default "10 300") the toolset sizes of part 3.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tg=$build/cli/toolgate
runs=${TG_BENCH_RUNS:-10}
call_runs=$((runs * 3))
command -v hyperfine >/dev/null || { echo "bench/registry: hyperfine is not installed"; exit 3; }
work=$(mktemp -d /tmp/tg_bench_registry.XXXXXX)
trap 'rm -rf "$work"' EXIT
home=$work/home
mkdir -p "$work/tool" "$work/gcc"
cp "$here/stats.c" "$here/tool.json" "$work/tool/"
cp "$here/stats.c" "$work/gcc/stats.c"
sdk=$src/sdk
"$tg" --home "$home" init >/dev/null

# bump FILE: make the source unique (first line) so nothing is cached
cat >"$work/bump.sh" <<'EOF'
f=$1
n=$(cat "$f.n" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$f.n"
sed -i "1s|.*|/* bench run $n $$ */|" "$f"
EOF
median() { # JSON-FILE INDEX -> median seconds
	python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][int(sys.argv[2])]['median'])" "$1" "$2"
}
ms() { python3 -c "import sys; print('%.1f' % (float(sys.argv[1]) * 1000))" "$1"; }
ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
diffms() { python3 -c "import sys; print('%.1f' % ((float(sys.argv[1]) - float(sys.argv[2])) * 1000))" "$1" "$2"; }

echo "-- create (100-line tool, 5 tests) vs bare gcc -O2 -static"
hyperfine -N -w 2 -r "$runs" --export-json "$work/create.json" \
	--prepare "sh $work/bump.sh $work/gcc/stats.c" \
	"gcc -O2 -static -I$sdk -o $work/gcc/stats $work/gcc/stats.c" \
	--prepare "sh $work/bump.sh $work/tool/stats.c" \
	"$tg --home $home create $work/tool" >"$work/create.txt" 2>&1 || { cat "$work/create.txt"; exit 1; }
gcc_m=$(median "$work/create.json" 0)
create_m=$(median "$work/create.json" 1)
"$tg" --home "$home" history bench_stats --json | grep -c '"status": "\(active\|inactive\)"' >"$work/passed"
echo "bare gcc -O2 -static: median $(ms "$gcc_m") ms"
echo "toolgate create:      median $(ms "$create_m") ms  ratio $(ratio "$create_m" "$gcc_m")x (target <= 2.5x)"
echo "versions that passed: $(cat "$work/passed") (every run must pass)"

echo "-- call vs the bare binary"
# the active version's binary: the newest build (every run passes, and a
# cache folder is named by the cache key, not the content hash)
bin=$(ls -t "$home"/cache/*/tool | head -1)
args='{"values":[3,1,4,1,5,9,2,6,5,3,5],"precision":2}'
printf '%s' "$args" >"$work/args.json"
hyperfine -w 3 -r "$call_runs" --export-json "$work/call.json" \
	"$bin < $work/args.json" \
	"$tg --home $home call bench_stats - < $work/args.json" \
	"$tg --version" \
	"$tg sandbox exec -- $bin < $work/args.json" >"$work/call.txt" 2>&1 || { cat "$work/call.txt"; exit 1; }
bare_m=$(median "$work/call.json" 0)
call_m=$(median "$work/call.json" 1)
ver_m=$(median "$work/call.json" 2)
sbx_m=$(median "$work/call.json" 3)
echo "bare binary:             median $(ms "$bare_m") ms"
echo "toolgate call:           median $(ms "$call_m") ms  over bare: $(diffms "$call_m" "$bare_m") ms (target <= 3 ms)"
echo "  toolgate --version:    median $(ms "$ver_m") ms  (process start alone)"
echo "  toolgate sandbox exec: median $(ms "$sbx_m") ms  (start + sandbox, no registry)"
echo "  registry share of call: $(diffms "$call_m" "$sbx_m") ms (open registry, schema check, call log)"
echo "  call over --version:   $(diffms "$call_m" "$ver_m") ms (sandbox + registry: what start-up does not explain)"

echo "-- the same without a shell (hyperfine -N, arguments on the command line)"
hyperfine -N -w 3 -r "$call_runs" --export-json "$work/calln.json" \
	"$tg --version" \
	"$tg --home $home call bench_stats '$args'" >"$work/calln.txt" 2>&1 || { cat "$work/calln.txt"; exit 1; }
vern_m=$(median "$work/calln.json" 0)
calln_m=$(median "$work/calln.json" 1)
echo "toolgate --version:      median $(ms "$vern_m") ms"
echo "toolgate call:           median $(ms "$calln_m") ms  over --version: $(diffms "$calln_m" "$vern_m") ms"

echo "-- call inside one process (as toolgate serve runs it), medians of $call_runs"
"$build/bench/registry/bench_registry_call" "$home" bench_stats "$args" "$call_runs" "$bin" \
	>"$work/inproc.txt"
get() { awk -v k="$1" '$1 == k { print $2 }' "$work/inproc.txt"; }
python3 - "$(get bare)" "$(get sbx)" "$(get call)" "$(get open)" <<'PY'
import sys
bare, sbx, call, opn = map(float, sys.argv[1:])
print("bare binary (posix_spawn):  %.2f ms" % bare)
print("tg_sandbox_run alone:       %.2f ms  (+%.2f ms over bare)" % (sbx, sbx - bare))
print("tg_registry_call:           %.2f ms  (+%.2f ms over bare, target <= 3 ms; registry share %.2f ms)" % (call, call - bare, call - sbx))
print("tg_registry_open + free:    %.2f ms  (paid once per CLI command)" % opn)
PY

echo "-- tg_registry_open as the toolset grows, medians of $call_runs"
for n in ${TG_BENCH_OPEN_TOOLS:-10 300}; do
	mkdir -p "$work/open$n"
	"$build/bench/registry/bench_registry_open" "$work/open$n" "$n" "$call_runs" >"$work/open$n.txt"
	o() { awk -v k="$1" '$1 == k { print $2 }' "$work/open$n.txt"; }
	echo "$n tools: fingerprint $(o fp) ms, open (fingerprint matches) $(o fast) ms, open (re-index check, libgit2) $(o slow) ms"
done

echo "-- toolgate verify as the audit chain grows (every entry's hash and link checked)"
# entries appended by bench_registry_audit under eatmydata when present (each
# append is otherwise a durable commit, about 4 ms here); TG_BENCH_AUDIT_ROWS
# (default "10000 100000"; "10000 100000 1000000" for the figure in
# docs/RELIABILITY.md) are the chain's lengths, grown on one home
ah=$work/audit
"$tg" --home "$ah" init >/dev/null
fast=$(command -v eatmydata || true)
have=0
for rows in ${TG_BENCH_AUDIT_ROWS:-10000 100000}; do
	$fast "$build/bench/registry/bench_registry_audit" "$ah" $((rows - have)) >/dev/null
	have=$rows
	hyperfine -N -w 1 -r 5 --export-json "$work/verify$rows.json" "$tg --home $ah verify" \
		>"$work/verify$rows.txt" 2>&1 || { cat "$work/verify$rows.txt"; exit 1; }
	v=$(median "$work/verify$rows.json" 0)
	python3 -c "import sys; r, v = int(sys.argv[1]), float(sys.argv[2]); print('%8d entries: verify median %.0f ms, %.2f us per entry' % (r, v * 1e3, v * 1e6 / r))" "$rows" "$v"
done
