#!/bin/sh
# bench/schema/run.sh BUILD_DIR: the figures of issue 27 (JSON Schema 2020-12
# and property tests at create), in one run:
#  - the official JSON-Schema-Test-Suite for draft 2020-12: passed / total
#    (schema_suite_runner; what is listed as unsupported, and why, is
#    tests/schema/suite_unsupported.txt);
#  - the bug corpus (tests/registry/proptest/, every tool but ok_*) caught at
#    create with the default property_tests, and false failures on the clean
#    side (examples/ and bench/authoring/tools: a create that fails on a
#    property test);
#  - create time of csv_to_json (136 lines) with property_tests 0, 16, 64 and
#    64 on one worker, RUNS fresh homes each, interleaved: median and slowest
#    (p99 of so few runs);
#  - validation cost per call for a 20-keyword schema and a 1 MB argument
#    (schema_bench: medians and p99).
# Not a test: it prints figures (docs/SCHEMA.md and README quote them).
set -u
build=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
TG=$build/cli/toolgate
RUNS=${RUNS:-5}
work=$(mktemp -d /tmp/tg_bench_schema.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws"

echo "== official suite (draft 2020-12, required tests)"
"$build/tests/schema/schema_suite_runner" "$SRC/tests/schema/suite/tests/draft2020-12" \
	"$SRC/tests/schema/suite_unsupported.txt" | tail -n 1

fresh() { # a new home with the default property_tests (a workspace for file_stats; no
	   # rate limit on creates, which a run of this many would meet)
	rm -rf "$work/home"
	"$TG" --home "$work/home" init >/dev/null 2>&1
	printf '{"home_max_creates_per_minute": 0, "workspace": "%s"%s}\n' "$work/ws" "${1:+, \"property_tests\": $1}" \
		>"$work/home/config.json"
}

echo "== bug corpus caught at create (default property_tests)"
fresh
caught=0
n=0
for d in "$SRC"/tests/registry/proptest/*/; do
	name=$(basename "$d")
	case $name in ok_*) continue ;; esac
	n=$((n + 1))
	"$TG" --home "$work/home" create "$d" --json >"$work/out" 2>&1
	if grep -q '"reason": "property test [0-9]* failed' "$work/out"; then
		caught=$((caught + 1))
	else
		echo "  missed: $name"
	fi
done
echo "caught $caught of $n"

echo "== clean side: false failures (a property test failing a create)"
fresh
false_fail=0
n=0
for d in "$SRC"/examples/*/ "$SRC"/bench/authoring/tools/*/; do
	[ -f "$d/tool.json" ] || continue
	case $d in *_buggy/) continue ;; esac # fails its own tests on purpose
	n=$((n + 1))
	"$TG" --home "$work/home" create "$d" --json >"$work/out" 2>&1
	if grep -q '"reason": "property test' "$work/out"; then
		false_fail=$((false_fail + 1))
		echo "  false failure: $d"
	fi
done
echo "false failures: $false_fail of $n tools"

echo "== create time of examples/csv_to_json ($(wc -l <"$SRC/examples/csv_to_json/tool.c") lines), $RUNS fresh homes each, the counts interleaved"
# "64w1": 64 inputs on one worker (TOOLGATE_PROPTEST_WORKERS=1), the inputs
# one after another as before registry/create/propruns.c
: >"$work/all"
i=0
while [ "$i" -lt "$RUNS" ]; do
	for cfg in 0 16 64 64w1; do
		fresh "${cfg%w1}"
		t0=$(date +%s%N)
		if [ "$cfg" = 64w1 ]; then
			TOOLGATE_PROPTEST_WORKERS=1 "$TG" --home "$work/home" create "$SRC/examples/csv_to_json" --json >"$work/out" 2>&1
		else
			"$TG" --home "$work/home" create "$SRC/examples/csv_to_json" --json >"$work/out" 2>&1
		fi || echo "  create failed with property_tests $cfg"
		t1=$(date +%s%N)
		# the create's wall time, the property tests' own (0 when off)
		echo "$cfg $(((t1 - t0) / 1000000)) $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["property_tests"].get("wall_ms", 0))' "$work/out")" >>"$work/all"
	done
	i=$((i + 1))
done
python3 - "$work/all" <<'PY'
import statistics, sys
d = {}
for line in open(sys.argv[1]):
    cfg, t, p = line.split()
    d.setdefault(cfg, []).append((int(t), int(p)))
base = statistics.median(t for t, _ in d["0"])
for cfg in ["0", "16", "64", "64w1"]:
    ts = sorted(t for t, _ in d[cfg]); ps = sorted(p for _, p in d[cfg])
    m, pm = statistics.median(ts), statistics.median(ps)
    print(f"property_tests {cfg}: create median {m:.0f} ms, slowest {ts[-1]} ms, {m / base:.2f}x of off; "
          f"the property tests themselves: median {pm:.0f} ms, slowest {ps[-1]} ms ({(base + pm) / base:.2f}x of the median create off)")
PY
uptime | sed 's/.*load/load/'

echo "== validation cost per call (schema_bench)"
"$build/tests/schema/schema_bench"
