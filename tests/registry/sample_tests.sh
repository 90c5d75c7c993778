#!/bin/sh
# tests/registry/sample_tests.sh TOOLGATE SQLEXEC: tests from recorded calls
# (docs/REGISTRY.md, "Regression tests from real calls"). `tests add NAME
# --from-sample ID` makes recorded call ID a test (its arguments, its result
# as expect, a failed call as expect_error), stored and audited; every later
# create of NAME runs it with its manifest's tests: a version that changes
# that answer fails naming the test, a correct one is committed with it in
# its tool.json. Duplicates, unknown ids and another tool's sample are
# refused; the arguments are scrubbed on the terminal; history lists the
# stored tests; a shadow run's regression case carries its sample as a
# ready-to-add test (as_test); remove deletes one (audited).
. "$(dirname "$0")/lib.sh"

mk() { # TAG BODY: probe doubles x; BODY runs first
	d=$WORK/src/probe_$1
	rm -rf "$d"
	mkdir -p "$d"
	cat >"$d/tool.c" <<C
#include <stdlib.h>
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long x = tg_arg_int(a, "x", 0), y = 2 * x;
	$2
	tg_out_object_begin();
	tg_out_key_int("y", y);
	tg_out_object_end();
	tg_out_end();
	return 0;
}
C
	cat >"$d/tool.json" <<J
{"name": "probe", "description": "Double x",
 "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
 "source": "tool.c",
 "tests": [{"name": "one", "args": {"x": 1}, "expect": {"y": 2}}]}
J
	echo "$d"
}

run tg create "$(mk v1 'if (x == 9) return 3;')"
expect_rc 0 "create v1"
tg call probe '{"x": 2}' >/dev/null || fail "call x=2"
tg call probe '{"x": 3, "note": "\u202ered"}' >/dev/null || fail "call x=3"
tg call probe '{"x": 9}' >/dev/null 2>&1 && fail "x=9 fails"
run tg samples probe
expect_out '^#2 v1 .*"x":3' "sample 2 is x=3"

run tg tests add probe --from-sample 2
expect_rc 0 "tests add"
expect_out '^probe: added a test that every later create runs:$' "add says what it did"
expect_out '^  "recorded call #2": args \{"x":3,"note":"<U\+202E>red"\} -> \{"y":6\}$' "the test, its args scrubbed"
checks=$((checks + 1))
grep -q "$(printf '\342\200\256')" "$OUT" && fail "a raw bidi override reached the terminal"
run tg tests add probe --from-sample 2
expect_rc 2 "the same sample twice"
expect_err '^toolgate: tests add: probe already has the test "recorded call #2"$' "says so"
run tg tests add probe --from-sample 99
expect_rc 2 "an unknown sample"
expect_err 'probe has no recorded call #99' "names the id"
run tg tests add word_count --from-sample 1
expect_err 'word_count has no recorded call #1' "another tool's sample is not this tool's"
run tg tests add probe --from-sample 3 --json
expect_rc 0 "a failed call as a test"
expect_out '"expect_error": true' "expects an error"
run tg tests list probe
expect_out '^probe: 2 tests made of recorded calls$' "list counts them"
expect_out '^  "recorded call #3": args \{"x":9\} -> an error$' "list shows the failed one"
run tg history probe --json
expect_out '"regression_tests": \[' "history lists them"
run tg history probe
expect_out '^tests made of recorded calls, run by every create: 2 \(toolgate tests list probe\)$' "history's text says so"
run tg log --event test_added --json
expect_out '"sample": 2' "adding is audited"

# a version that answers x=3 differently fails on the added test
run tg create "$(mk v2 'if (x == 9) return 3; if (x == 3) y = 7;')"
expect_rc 1 "create v2"
expect_out '^probe v2: failed' "v2 fails"
expect_out 'test "recorded call #2": FAIL: expected \{"y":6\}, got \{"y":7\}' "on the recorded call"
# one that no longer fails on x=9 fails the expect_error test
run tg create "$(mk v3 '')"
expect_rc 1 "create v3"
expect_out 'test "recorded call #3": FAIL: expected an error' "on the failed call"
# a correct one passes and carries them in its tool.json
run tg create "$(mk v4 'if (x == 9) return 3; /* v4 */')"
expect_rc 0 "create v4"
expect_out '^probe v4: active' "v4 active"
expect_out 'test "recorded call #2": pass' "ran the added test"
run tg show probe@4 --json
expect_out '"name": "recorded call #3"' "tool.json holds the tests"

# a regression's case carries its sample as a ready-to-add test
run tg create --json "$(mk v5 'if (x == 9) return 3; if (x == 2) abort();')"
expect_out '"status": "held"' "a crash on x=2 holds v5"
expect_out '"as_test": \{' "the case carries a test"
expect_out '"name": "recorded call #1"' "named after its sample"

run tg tests remove probe "recorded call #2"
expect_rc 0 "remove"
expect_out '^probe: removed the test "recorded call #2"$' "remove says so"
run tg tests remove probe "recorded call #2"
expect_rc 2 "remove twice"
run tg log --event test_removed --json
expect_out '"test": "recorded call #2"' "removing is audited"
run tg create "$(mk v6 'if (x == 9) return 3; if (x == 3) y = 7;')"
expect_out '^probe v6: active' "without the test, x=3 may change"
finish sample_tests
