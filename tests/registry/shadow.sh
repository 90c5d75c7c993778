#!/bin/sh
# tests/registry/shadow.sh TOOLGATE SQLEXEC: shadow runs at create
# (docs/REGISTRY.md, "A new version earns its place"). A new version that
# passed its tests is run on the recorded calls, the active one twice on the
# same calls (a field that changes from run to run, here a clock, is noise
# and ignored). Under promotion "strict" a version that changes its output
# on some recorded inputs is held; under "shadow" (the default) the same is
# only reported, and a version that crashes on a recorded input is held
# with that input named (create result, history). promote NAME@V activates
# a held version (audited); shadow runs write no calls row. diff --behaviour
# prints the stored report per sample; show says held and why.
. "$(dirname "$0")/lib.sh"

mk() { # VERSION_TAG BODY: a tool probe doubling x; for x >= 2 it adds "t",
       # nanoseconds of the clock (never equal in two runs)
	d=$WORK/src/probe_$1
	rm -rf "$d"
	mkdir -p "$d"
	cat >"$d/tool.c" <<C
#include <stdlib.h>
#include <time.h>
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long x = tg_arg_int(a, "x", 0), y = 2 * x;
	struct timespec ts;
	$2
	clock_gettime(CLOCK_MONOTONIC, &ts);
	tg_out_object_begin();
	tg_out_key_int("y", y);
	if (x >= 2)
		tg_out_key_int("t", (long long)ts.tv_nsec + ts.tv_sec);
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
calls() { "$SQLX" "$HOME_DIR/registry.db" "SELECT count(*) FROM calls"; }

run tg create "$(mk v1 '')"
expect_rc 0 "create v1"
expect_out '^probe v1: active' "v1 active"
for x in 2 3 4 5; do
	tg call probe "{\"x\": $x}" >/dev/null || fail "call x=$x"
done

# strict: v2 answers 7 for x=3 (the clock field differs on every sample,
# and is ignored as noise): held, the difference named
echo '{"promotion": "strict"}' >"$HOME_DIR/config.json"
run tg create "$(mk v2 'if (x == 3) y = 7;')"
expect_rc 0 "create v2 under strict"
expect_out '^probe v2: held' "a difference holds v2 under strict"
expect_out 'shadow runs against v1 on 4 recorded calls: 3 same, 1 differ, 0 regressions, 0 fixed' "the summary line"
expect_out 'differs on args \{"x":3\}: \["\$\.y"\]' "the reason names the input and the path"
expect_out 'toolgate promote probe@2' "the reason says how to activate it"
run tg create --json "$(mk v2b 'if (x == 3) y = 7; else y = 2 * x + 0;')"
expect_out '"noise": \[' "the report lists the noise"
expect_out '"\$\.t"' "the clock field is noise"
expect_out '"recorded_as_second_run": 4' "v1 made the 4 recorded calls: they are its second runs"
run tg call probe '{"x": 3}'
expect_out '^\{"y":6,' "v1 still answers"

# shadow (the default): the same change is reported, not held
echo '{}' >"$HOME_DIR/config.json"
run tg create "$(mk v4 'if (x == 3) y = 7;')"
expect_rc 0 "create v4 under shadow"
expect_out '^probe v4: active' "a difference does not hold under shadow"
expect_out 'on 5 recorded calls: 3 same, 2 differ, 0 regressions' "but it is reported (x=3 was called twice)"

# a crash on a recorded input (x=5, abort): held under shadow, the input
# named; x=5 was recorded on v1, and v4 runs it too
before=$(calls)
run tg create "$(mk v5 'if (x == 5) abort();')"
expect_rc 0 "create v5"
expect_out '^probe v5: held' "a regression holds v5"
expect_out '^  held by shadow runs against v4: regression on args \{"x":5\}: .* \(1 regression, 2 differences on 5 recorded calls; promotion "shadow"\); a person may activate it: toolgate promote probe@5$' "the crashing input is named"
run tg history probe
expect_out '^  v5 +held .*held by shadow runs against v4: regression on args \{"x":5\}' "history says why, with the input"
run tg history probe --json
expect_out '"status": "held"' "history shows the held version"
expect_out '"regression": 1' "with its report"
expect_out '"kind": "regression"' "and the case"
expect_out '"x": 5' "naming the input"
run tg log --event shadow --json
expect_out '"held": true' "the shadow runs are audited"
checks=$((checks + 1))
[ "$(calls)" = "$before" ] || fail "shadow runs wrote calls rows: $before -> $(calls)"
run tg call probe '{"x": 3}'
expect_out '^\{"y":7,' "v4 stays active"
# diff --behaviour: the stored report, sample by sample
run tg diff probe 4 5 --behaviour
expect_rc 0 "diff --behaviour"
expect_out '^probe v5 against v4 on 5 recorded calls \(promotion "shadow"; v5 is held\): 2 same, 2 differ, 1 regression\(s\), 0 fixed$' "its summary"
expect_out '^  noise ignored \(differed between two runs of v4\): \["\$\.t"\]$' "the noise fields"
expect_out '^  #1 same$' "a same sample"
expect_out '^  #2 differs on \{"x":3\}: \["\$\.y"\]$' "a difference, its path"
expect_out '^      was \{"y":7,"t":[0-9]+\}$' "the active version's result"
expect_out '^      now \{"y":6,"t":[0-9]+\}$' "the candidate's"
expect_out '^  #4 regression on \{"x":5\}: signaled: the tool was killed by signal 6$' "the regression and why"
run tg diff probe 4 5 --behaviour --json
expect_out '"per_sample": \[' "--json: the report"
expect_out '"as_test_omitted": \{' "a noisy result is no ready-to-add test"
expect_out '"recorded_as_second_run": 0' "v4 made none of them: it ran twice"
run tg diff probe 3 5 --behaviour
expect_rc 2 "against another version"
expect_err '^toolgate: diff: probe v5 was shadow-run against v4, not v3: toolgate diff probe 4 5 --behaviour$' "names the right one"
run tg diff probe 1 2 --behaviour
expect_out '^probe v2 against v1 on 4 recorded calls \(promotion "strict"; v2 is held\)' "a strict hold"
run tg show probe@5
expect_out '^status: +held$' "show says held"
expect_out '^reason: +held by shadow runs against v4: regression on args \{"x":5\}' "and why"
run tg verify
expect_rc 0 "verify agrees with a held version (its commit says it passed)"

# promote: a person activates the held version; only a held one
run tg promote probe@1
expect_rc 2 "promote of a version that is not held"
expect_err 'probe v1 is inactive, not held' "says why"
run tg promote probe@5
expect_rc 0 "promote probe@5"
expect_out '^probe: v5 is active \(promoted by a person; was v4\)$' "promote says what it did"
run tg log --event promote --json
expect_out '"version": 5' "promote is audited"
run tg call probe '{"x": 4}'
expect_out '^\{"y":8,' "v5 answers"

# promotion "tests": no shadow run at all
echo '{"promotion": "tests"}' >"$HOME_DIR/config.json"
run tg create "$(mk v6 'if (x == 2) return 3;')"
expect_out '^probe v6: active' "tests alone decide under promotion tests"
checks=$((checks + 1))
grep -q 'shadow runs' "$OUT" && fail "shadow runs under promotion tests"

# a new input_schema that refuses the recorded arguments: a changed
# interface, reported as a difference (held under strict only)
echo '{}' >"$HOME_DIR/config.json"
d=$(mk v7 '')
sed -i 's/"x": {"type": "integer"}/"x": {"type": "integer", "maximum": 1}/' "$d/tool.json"
run tg create --json "$d"
expect_out '"status": "active"' "a refused argument does not hold under shadow"
expect_out '"\(arguments refused by the new input_schema\)"' "it is a difference"
expect_out '"regression": 0' "not a regression"
finish shadow
