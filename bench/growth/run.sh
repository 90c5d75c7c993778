#!/bin/sh
# bench/growth/run.sh BUILD_DIR: how a home grows (issue 15). Targets: disk
# per small version under 50 KB; verify under 100 ms at 2,000 tools.
#  Sizes are disk blocks (du), not file lengths.
#  1. Disk per version of real creates: TG_BENCH_GROWTH_CREATES (default 20)
#     versions of one small tool through `toolgate create` (rate limits
#     lifted), the growth of store.git, registry.db (+ WAL) and cache/ per
#     version, and of store.git once `toolgate gc` packed it.
#  2. list / history / verify at 100, 1,000 and 2,000 tools
#     (TG_BENCH_GROWTH_SIZES): bench_growth makes each home through the
#     library, N active tools and one tool "hist" with N versions, committed
#     to the store as the pipeline commits them and indexed by the registry
#     (2,000 real creates would take about 40 minutes here: analysis, two
#     sandboxed compiler runs and the tests each). hyperfine medians of
#     `toolgate list --json`, `history hist --json` (N versions) and
#     `verify --json`, and the store's disk per version, loose and packed;
#     then verify again once `toolgate gc` packed the objects (what a real
#     home holds: creates pack it past pack_loose_objects, default 1000).
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tg=$build/cli/toolgate
creates=${TG_BENCH_GROWTH_CREATES:-20}
sizes=${TG_BENCH_GROWTH_SIZES:-"100 1000 2000"}
command -v hyperfine >/dev/null || { echo "bench/growth: hyperfine is not installed"; exit 3; }
work=$(mktemp -d /tmp/tg_bench_growth.XXXXXX)
trap 'rm -rf "$work"' EXIT
bytes() { du -s --block-size=1 "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
kb() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.1f", b / n / 1024 }'; }

echo "-- 1. disk per version: $creates real creates of one small tool"
home=$work/real
"$tg" --home "$home" init >/dev/null
printf '{"home_max_creates_per_minute": 0, "session_max_creates_per_minute": 0, "max_rejected_per_tool_hour": 0}\n' >"$home/config.json"
mkdir -p "$work/tool"
cp "$src/tests/registry/tools/word_count.c" "$work/tool/"
cp "$src/tests/registry/tools/word_count.json" "$work/tool/tool.json"
s0=$(bytes "$home/store.git"); d0=$(bytes "$home"/registry.db*); c0=$(bytes "$home/cache")
i=0
while [ $i -lt "$creates" ]; do
	i=$((i + 1))
	printf "/* growth version %d */\n" $i >>"$work/tool/word_count.c"
	"$tg" --home "$home" create "$work/tool" >/dev/null
done
s1=$(bytes "$home/store.git"); d1=$(bytes "$home"/registry.db*); c1=$(bytes "$home/cache")
"$tg" --home "$home" gc >/dev/null
s2=$(bytes "$home/store.git")
echo "store.git      $(kb $((s1 - s0)) "$creates") KB per version (loose objects)"
echo "store.git      $(kb $((s2 - s0)) "$creates") KB per version after toolgate gc (packed)"
echo "registry.db    $(kb $((d1 - d0)) "$creates") KB per version (with WAL)"
echo "store + db     $(kb $((s1 - s0 + d1 - d0)) "$creates") KB per version (target < 50 KB)"
echo "cache/         $(kb $((c1 - c0)) "$creates") KB per version (the static build; bounded by cache_budget_mb, evicted when inactive)"

echo "-- 2. list / history / verify as the home grows (hyperfine medians)"
printf '%-6s %10s %12s %10s %12s %12s %12s\n' tools "list ms" "history ms" "verify ms" "KB/ver loose" "KB/ver packed" "verify packed"
for n in $sizes; do
	home=$work/h$n
	"$build/bench/growth/bench_growth" "$home" "$n" "$n" >/dev/null
	versions=$((n + n))
	"$tg" --home "$home" verify >/dev/null || { echo "bench/growth: verify failed at $n tools"; exit 1; }
	hyperfine -N -w 2 -r 10 --export-json "$work/$n.json" \
		"$tg --home $home list --json" \
		"$tg --home $home history hist --json" \
		"$tg --home $home verify --json" >/dev/null 2>&1
	med() { python3 -c "import json,sys; print('%.1f' % (json.load(open(sys.argv[1]))['results'][int(sys.argv[2])]['median'] * 1000))" "$work/$n.json" "$1"; }
	loose=$(bytes "$home/store.git")
	"$tg" --home "$home" gc >/dev/null
	packed=$(bytes "$home/store.git")
	hyperfine -N -w 2 -r 10 --export-json "$work/$n.packed.json" \
		"$tg --home $home verify --json" >/dev/null 2>&1
	vp=$(python3 -c "import json,sys; print('%.1f' % (json.load(open(sys.argv[1]))['results'][0]['median'] * 1000))" "$work/$n.packed.json")
	printf '%-6s %10s %12s %10s %12s %12s %12s\n' "$n" "$(med 0)" "$(med 1)" "$(med 2)" \
		"$(kb "$loose" $versions)" "$(kb "$packed" $versions)" "$vp"
	rm -rf "$home"
done
