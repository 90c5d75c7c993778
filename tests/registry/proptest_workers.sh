#!/bin/sh
# tests/registry/proptest_workers.sh TOOLGATE SQLEXEC: property-test inputs
# run on worker threads (registry/create/propruns.c) are judged in input
# order, so a create's property-test report is the one a run of the inputs
# one after another gives. For tools of the bug corpus
# (tests/registry/proptest/) whose shrinking is not bounded by time, a
# create with one worker and one with four (TOOLGATE_PROPTEST_WORKERS, the
# test-only worker count, docs/REGISTRY.md) fail with the same reason, the
# same failed entry (its wall time aside) and the same summary (its wall
# time and worker count aside): the same input index, the same shrunk args,
# the same number of runs. The summary names the worker count used.
. "$(dirname "$0")/lib.sh"

PT=$HERE/proptest
mkdir -p "$WORK/ws"
run tg init
printf '{"home_max_creates_per_minute": 0, "session_max_creates_per_minute": 0, "workspace": "%s", "property_tests": 64}\n' "$WORK/ws" >"$HOME_DIR/config.json"

# the report of a create's --json output, without what depends on timing
report() { # FILE
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pt = dict(d["property_tests"])
workers = pt.pop("workers", None)
pt.pop("wall_ms", None)
failed = [dict(t) for t in d["tests"] if not t.get("passed") and t["name"].startswith("property ")]
for t in failed:
    t.pop("wall_ms", None)
print(workers)
print(json.dumps({"status": d["status"], "reason": d.get("reason"), "summary": pt, "failed": failed}, sort_keys=True))
' "$1"
}

for t in greet unit_label find_char nth_word initials mean triangle weekday_num avg_word_len; do
	TOOLGATE_PROPTEST_WORKERS=1 run tg create "$PT/$t" --json
	expect_rc 1 "$t: create fails with one worker"
	report "$OUT" >"$WORK/one" || fail "$t: no report with one worker"
	TOOLGATE_PROPTEST_WORKERS=4 run tg create "$PT/$t" --json
	expect_rc 1 "$t: create fails with four workers"
	report "$OUT" >"$WORK/four" || fail "$t: no report with four workers"
	checks=$((checks + 1))
	[ "$(sed -n 1p "$WORK/one")" = 1 ] && [ "$(sed -n 1p "$WORK/four")" = 4 ] ||
		fail "$t: the summary's worker counts are $(sed -n 1p "$WORK/one") and $(sed -n 1p "$WORK/four"), not 1 and 4"
	checks=$((checks + 1))
	grep -q '"reason": "property test [0-9]* failed: ' "$WORK/one" ||
		fail "$t: the reason does not name a property test: $(sed -n 2p "$WORK/one")"
	checks=$((checks + 1))
	[ "$(sed -n 2p "$WORK/one")" = "$(sed -n 2p "$WORK/four")" ] ||
		fail "$t: the reports differ: one worker $(sed -n 2p "$WORK/one"); four $(sed -n 2p "$WORK/four")"
	echo "$t: $(sed -n 2p "$WORK/four" | sed 's/.*"reason": "\(property test [0-9]*\) failed.*/\1/')"
done

# a clean tool: every input run and passed with four workers
TOOLGATE_PROPTEST_WORKERS=4 run tg create "$HERE/../../examples/csv_to_json" --json
expect_rc 0 "csv_to_json passes with four workers"
expect_out '"workers": 4,' "four workers used"
checks=$((checks + 1))
n=$(sed -n 's/^    "inputs": \([0-9]*\),$/\1/p' "$OUT")
p=$(sed -n 's/^    "passed": \([0-9]*\),$/\1/p' "$OUT")
[ "$n" = 64 ] && [ "$p" = 64 ] || fail "csv_to_json: $p of $n generated inputs passed"
finish proptest_workers
