#!/bin/sh
# tests/registry/proptest.sh TOOLGATE SQLEXEC: property tests at create
# (registry/create/propgen.c, proptest.c; docs/REGISTRY.md, "Property
# tests"). Each tool of tests/registry/proptest/ passes its own tests but
# has a bug that an input generated from its input_schema reaches: its
# create exits 1, status failed, the reason names the property test, what
# went wrong and the shrunk args (exact where the shrink is not bounded by
# time), and a test to add. The same tool with property_tests 0 passes.
# The clean side: the examples and test tools that pass today still pass
# with property tests on, with every generated input run (no false
# failures). A pattern without examples is left out, and the result says so.
. "$(dirname "$0")/lib.sh"

SRC=$(cd "$HERE/../.." && pwd)
PT=$HERE/proptest
mkdir -p "$WORK/ws"
run tg init
printf '{"home_max_creates_per_minute": 0, "session_max_creates_per_minute": 0, "workspace": "%s"}\n' "$WORK/ws" >"$HOME_DIR/config.json"

buggy() { # NAME KIND-REGEX SHRUNK-ARGS (exact JSON, or - when time-bounded)
	run tg create "$PT/$1" --json
	expect_rc 1 "$1: create fails"
	expect_out '"status": "failed"' "$1: status failed"
	expect_out "\"reason\": \"property test [0-9]+ failed: $2" "$1: the reason names the failure"
	expect_out '"name": "property [0-9]+",' "$1: a failed property entry in tests"
	expect_out '"suggested_test": \{' "$1: the entry carries the test to add"
	if [ "$3" != - ]; then
		# in the JSON output the reason's quotes are escaped
		q=$(printf '%s' "$3" | sed 's/"/\\"/g')
		checks=$((checks + 1))
		grep -Fq "with args $q; a test to add: {\\\"name\\\":\\\"property " "$OUT" ||
			fail "$1: the reason lacks the shrunk args $3"
		checks=$((checks + 1))
		grep -Fq "\\\"args\\\":$q,\\\"expect_error\\\":true}\"" "$OUT" ||
			fail "$1: the test to add lacks the shrunk args $3"
	fi
}

buggy title_case 'the tool was killed by signal 6' '{"text":"éééééééééééééééé"}'
buggy greet 'the tool was killed by signal 11' '{"name":""}'
buggy triangle 'the tool was killed by signal 6' '{"n":65536}'
buggy longest_repeat 'killed by the sandbox: timeout after 500 ms' -
buggy unit_label 'the result does not match output_schema: result.label: must be a string' '{"metres":0,"unit":"mi"}'
buggy reverse "the tool's output is not one JSON value" '{"text":"hé"}'
buggy mean 'the tool was killed by signal 8' '{"numbers":[]}'
# reached only since the generator follows prefixItems and merges allOf
buggy pair_ratio 'the tool was killed by signal 8' '{"pair":[1,0]}'
buggy share_left 'the tool was killed by signal 8' '{"pct":100}'
# reached only since the generator gives a "date" string valid dates (format
# is an annotation here, so the shrinker may cut the date short)
buggy month_days 'the tool was killed by signal 6' '{"date":"1999-12-3"}'
buggy repeat_text 'killed by the sandbox: output over 1024 KiB' -
# shrunk one step at a time toward 33 within the shrinker's run budget
buggy pad_left 'the tool was killed by signal 6' -
buggy nth_word 'the tool was killed by signal 11' '{"text":"a","index":1}'
buggy initials 'the tool was killed by signal 11' '{"first":"A","last":"T"}'
buggy find_char 'the result does not match output_schema: result.index: must be >= 0' '{"text":"","ch":"x"}'
buggy sum_squares 'the result does not match output_schema: result.sum: must be >= 0' -
buggy weekday_num 'the tool was killed by signal 11' '{"day":"sun"}'
buggy clock_time 'the tool was killed by signal 6' -
# a result whose content blocks toolgate refuses (common/content.c)
buggy text_card 'the result.s content is refused: [$]content\[0\]: mimeType ..image/svg[+]xml.. is not allowed' '{"text":""}'
buggy avg_word_len 'the tool was killed by signal 8' '{"text":""}'
buggy percent_bar 'the tool was killed by signal 6' -

# the same input every time: one version, one set of inputs
run tg create "$PT/greet"
checks=$((checks + 1))
grep -Fq 'property test 1 failed: the tool was killed by signal 11 with args {"name":""}; a test to add: {"name":"property 1","args":{"name":""},"expect_error":true}' "$OUT" ||
	fail "greet: the same failure on a second create"

# the text output shows the failed entry and the reason
run tg create "$PT/mean"
expect_rc 1 "mean (text)"
expect_out '^  test "property [0-9]+": FAIL: the tool was killed by signal 8 with args \{"numbers":\[\]\}' "text: the failed entry"

# off: the buggy tool passes its own tests and is active
printf '{"home_max_creates_per_minute": 0, "session_max_creates_per_minute": 0, "workspace": "%s", "property_tests": 0}\n' "$WORK/ws" >"$HOME_DIR/config.json"
run tg create "$PT/triangle" --json
expect_rc 0 "triangle with property tests off"
expect_out '"status": "active"' "triangle active with property tests off"
expect_out '"skipped": "off \(property_tests is 0\)"' "the result says they were off"
printf '{"home_max_creates_per_minute": 0, "session_max_creates_per_minute": 0, "workspace": "%s", "property_tests": 64}\n' "$WORK/ws" >"$HOME_DIR/config.json"

# a pattern with no examples: the property is left out, the result says so
run tg create "$PT/ok_pattern" --json
expect_rc 0 "ok_pattern passes"
expect_out 'code: a string with a pattern and no examples, default, const or enum is not generated' "the note on the pattern"

# the clean side: no false failures
for t in "$SRC/examples/word_count" "$SRC/examples/word_count_v2" "$SRC/examples/csv_to_json" \
	 "$SRC/examples/sort_lines" "$SRC/examples/stats" "$SRC/examples/file_stats" \
	 "$HERE/tools/word_count.json" "$HERE/tools/sdk_upper.json" "$HERE/tools/note_writer.json"; do
	run tg create "$t" --json
	expect_rc 0 "$t: create passes with property tests on"
	expect_out '"status": "(active|pending)"' "$t: active or pending"
	checks=$((checks + 1))
	n=$(sed -n 's/^    "inputs": \([0-9]*\),$/\1/p' "$OUT")
	p=$(sed -n 's/^    "passed": \([0-9]*\),$/\1/p' "$OUT")
	[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "$p" ] || fail "$t: $p of $n generated inputs passed"
	# the inputs that break input_schema one constraint at a time: all refused
	checks=$((checks + 1))
	vg=$(tr -d ' \n' <"$OUT" | sed -n 's/.*"violations":{"generated":\([0-9]*\),"refused":\([0-9]*\)}.*/\1 \2/p')
	[ -n "$vg" ] && [ "${vg% *}" -gt 0 ] && [ "${vg% *}" = "${vg#* }" ] ||
		fail "$t: violating inputs generated and refused: '$vg'"
	echo "$t: violations $vg"
done

# a tool that declares calls is not property-tested, and the result says so
run tg create "$SRC/examples/word_pair" --json
expect_out "\"skipped\": \"the tool declares calls: a bridged call would be answered like a test's without fixtures\"" "word_pair: skipped for its calls"
finish proptest
