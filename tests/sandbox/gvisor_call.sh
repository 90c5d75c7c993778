#!/bin/sh
# tests/sandbox/gvisor_call.sh TOOLGATE EXAMPLES: config.json's
# sandbox_backend end to end: with "gvisor" a registered tool's tests
# (create) and its calls run under runsc (TG_RUNSC pointing nowhere makes
# the call fail, naming it), with the same result as native; a one-off
# program runs, one with bridged calls too (the same answer natively); a bad
# value is refused; property tests run on four worker threads under gVisor
# and every input passes. Exits 77 (skipped) when runsc cannot run here.
set -u
tg=$1
ex=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/check.sh"

h=$tmp/home
"$tg" --home "$h" init >/dev/null 2>&1 || { echo "FAIL init"; exit 1; }
echo '{"sandbox_backend":"gvisor"}' >"$h/config.json"
if ! "$tg" --home "$h" doctor 2>&1 | grep -q '^ok    gvisor'; then
	echo "SKIP: runsc cannot run here: $("$tg" --home "$h" doctor 2>&1 | grep gvisor)"
	exit 77
fi
"$tg" --home "$h" create "$ex/word_count" >"$tmp/create" 2>&1
check "create under gvisor (tests pass)" 1 "$(grep -c 'word_count v1: active' "$tmp/create")"
# property tests under gVisor on four worker threads at once (runs from one
# process: sandbox_gvisor's gv_concurrent): every input run and passed
echo '{"sandbox_backend":"gvisor","property_tests":16,"property_test_budget_ms":120000}' >"$h/config.json"
TOOLGATE_PROPTEST_WORKERS=4 "$tg" --home "$h" create "$ex/csv_to_json" --json >"$tmp/pt" 2>&1
check "property tests under gvisor, four workers" "active 4 16 16 16 none" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pt = d.get("property_tests", {})
print(d.get("status"), pt.get("workers"), pt.get("inputs"), pt.get("passed"), pt.get("runs"), pt.get("budget", "none"))
' "$tmp/pt" 2>&1)"
echo '{"sandbox_backend":"gvisor"}' >"$h/config.json"
out=$("$tg" --home "$h" call word_count '{"text":"a b c"}' 2>&1)
check "call under gvisor" '{"words":3,"lines":1,"chars":5}' "$out"
out=$(TG_RUNSC=/nonexistent "$tg" --home "$h" call word_count '{"text":"a b c"}' 2>&1)
check "the call went through runsc" "toolgate: call: sandbox: gvisor: TG_RUNSC=/nonexistent: No such file or directory" "$out"
printf '#include <toolgate/tool.h>\nint main(void)\n{\n\ttg_out_object_begin();\n\ttg_out_key_int("n", 42);\n\ttg_out_end();\n\treturn 0;\n}\n' >"$tmp/one.c"
out=$("$tg" --home "$h" run "$tmp/one.c" '{}' 2>/dev/null)
check "one-off program under gvisor" '{"n":42}' "$out"
check "show-run says gvisor" 1 "$("$tg" --home "$h" show-run 1 | head -1 | grep -c ', backend gvisor$')"
check "its run audit entry says gvisor" 1 "$("$tg" --home "$h" log --event run | tail -1 | grep -c '"status":"ok".*"backend":"gvisor"}$')"
out=$("$tg" --home "$h" run "$ex/programs/longest_line.c" '{"text":"a b"}' --calls word_count 2>/dev/null)
check "bridged calls run under gvisor" '{"lines":1,"busiest_line":1,"words":2}' "$out"
echo '{"sandbox_backend":"native"}' >"$h/config.json"
out=$("$tg" --home "$h" run "$ex/programs/longest_line.c" '{"text":"a b"}' --calls word_count 2>/dev/null)
check "bridged calls run natively" '{"lines":1,"busiest_line":1,"words":2}' "$out"
out=$(TG_RUNSC=/nonexistent "$tg" --home "$h" call word_count '{"text":"a b c"}' 2>&1)
check "native: same result, no runsc" '{"words":3,"lines":1,"chars":5}' "$out"
echo '{"sandbox_backend":"kvm"}' >"$h/config.json"
out=$("$tg" --home "$h" call word_count '{"text":"a b c"}' 2>&1)
check "bad backend refused" 1 "$(echo "$out" | grep -c 'sandbox_backend: must be "native" or "gvisor"')"
[ "$fails" -eq 0 ] || exit 1
