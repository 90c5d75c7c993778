#!/bin/sh
# tests/registry/canary.sh TOOLGATE SQLEXEC: the canary after an activation
# (docs/REGISTRY.md, "A new version earns its place"). v2 passes its tests
# (promotion "tests": no shadow run holds it) but fails for x >= 2; v1 had
# no failure on its recorded calls. Two failures of v2 leave it active; the
# third of its first 20 recorded calls re-activates v1, audited
# "auto_revert". A version whose predecessor failed too is not reverted.
. "$(dirname "$0")/lib.sh"

mk() { # TAG BODY
	d=$WORK/src/canary_$1
	rm -rf "$d"
	mkdir -p "$d"
	cat >"$d/tool.c" <<C
#include <stdio.h>
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long x = tg_arg_int(a, "x", 0);
	$2
	tg_out_object_begin();
	tg_out_key_int("y", 2 * x);
	tg_out_object_end();
	tg_out_end();
	return 0;
}
C
	cat >"$d/tool.json" <<J
{"name": "canary", "description": "Double x",
 "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
 "source": "tool.c",
 "tests": [{"name": "one", "args": {"x": 1}, "expect": {"y": 2}}]}
J
	echo "$d"
}
active() { tg history canary --json | grep -E '^  "active"' | tr -dc 0-9; }

run tg create "$(mk v1 '')"
expect_rc 0 "create v1"
echo '{"promotion": "tests"}' >"$HOME_DIR/config.json"
for x in 2 3 4; do tg call canary "{\"x\": $x}" >/dev/null || fail "v1 call x=$x"; done
run tg create "$(mk v2 'if (x >= 2) { fprintf(stderr, "broken\n"); return 1; }')"
expect_out '^canary v2: active' "v2 passes its tests and is active"
run tg call canary '{"x": 2}'
expect_rc 1 "v2 fails once"
run tg call canary '{"x": 3}'
expect_rc 1 "v2 fails twice"
checks=$((checks + 1))
[ "$(active)" = 2 ] || fail "two failures reverted already (active v$(active))"
run tg call canary '{"x": 4}'
expect_rc 1 "the third failure is still the caller's error"
checks=$((checks + 1))
[ "$(active)" = 1 ] || fail "three failures did not re-activate v1 (active v$(active))"
run tg log --event auto_revert --json
expect_out '"version": 1' "auto_revert is audited"
expect_out '"from_version": 2' "naming the version it replaced"
run tg call canary '{"x": 4}'
expect_rc 0 "v1 answers again"
expect_out '^\{"y":8\}$' "with v1's result"

# a predecessor that failed one of its recorded calls too: no revert
run tg create "$(mk v3 'if (x >= 5) { fprintf(stderr, "broken\n"); return 1; }')"
expect_out '^canary v3: active' "v3 active"
tg call canary '{"x": 5}' >/dev/null 2>&1
tg call canary '{"x": 1}' >/dev/null || fail "v3 call x=1"
run tg create "$(mk v4 'if (x >= 2) { fprintf(stderr, "broken\n"); return 1; }')"
expect_out '^canary v4: active' "v4 active"
for x in 2 3 4; do tg call canary "{\"x\": $x}" >/dev/null 2>&1; done
checks=$((checks + 1))
[ "$(active)" = 4 ] || fail "v4 was reverted although v3 failed a recorded call too (active v$(active))"
finish canary
