#!/bin/sh
# tests/bridge/shadow_bridge.sh TOOLGATE SOURCE_DIR: shadow runs of a tool
# that makes bridged calls (docs/REGISTRY.md, "A new version earns its
# place"; docs/BRIDGE.md). examples/refund calls the host tool ledger_append
# (examples/ledger, appending a line to a ledger file chosen here). Its
# real calls are recorded with the replies of their bridged calls; a new
# version (pending: its calls need a person) is shadow-run on them with its
# bridged calls answered from the recording: the ledger file is unchanged,
# no bridge_call_intent is written, the report says "same". A version that
# makes a call the recording does not hold gets "unexpected" and each
# sample differs, naming the call; a pending version is never held. The
# journal counts in the sample's bytes (record_calls.tool_kb); a sample
# made a test (tests add) has its bridged call's reply as its fixture.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_shadow_bridge_XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { "$TG" --home "$H/home" "$@"; }
L=$H/ledger
mkdir -p "$L" "$H/home"
config() { # EXTRA_JSON_MEMBERS
	cat >"$H/home/config.json" <<EOC
{ $1
  "host_tools": [
    {"name": "ledger_append", "description": "append to the ledger",
     "input_schema": {"type": "object", "properties": {"account": {"type": "string"},
       "amount": {"type": "string"}}, "required": ["account", "amount"],
       "additionalProperties": false},
     "argv": ["/bin/sh", "$SRC/examples/ledger/ledger_append.sh", "$L"],
     "timeout_ms": 2000, "output_kb": 4, "approval": "never"}
  ]
}
EOC
}
# the host calls' intents, but those of the create's own tests (answered
# from their fixtures, caller NAME@test)
intents() { t log --event bridge_call_intent --json | grep '"caller": ' | grep -vc '@test"' || true; }
# refund_dir TAG EXTRA_C MAX_CALLS: examples/refund with EXTRA_C before its
# output (a second call, or a comment that only changes the hash)
refund_dir() {
	d=$H/src/$1
	mkdir -p "$d"
	python3 - "$SRC/examples/refund" "$d" "$2" "$3" <<'PY'
import json, sys
src, dst, extra, calls = sys.argv[1:]
c = open(src + "/tool.c").read()
c = c.replace("\ttg_out_object_begin();", extra + "\n\ttg_out_object_begin();", 1)
open(dst + "/tool.c", "w").write(c)
m = json.load(open(src + "/tool.json"))
m["limits"]["max_tool_calls"] = int(calls)
json.dump(m, open(dst + "/tool.json", "w"))
PY
	echo "$d"
}

t init >/dev/null
config ""
out=$(t create "$SRC/examples/refund") || fail "create refund: $out"
echo "$out" | grep -q '^refund v1: pending' || fail "v1 not pending: $out"
t approve refund@1 >/dev/null || fail "approve refund@1"
t call refund '{"account": "a1", "amount": "5"}' | grep -q '"entry":1' || fail "call 1"
t call refund '{"account": "a2", "amount": "7"}' | grep -q '"entry":2' || fail "call 2"
[ "$(wc -l <"$L/ledger.jsonl")" -eq 2 ] || fail "two real calls, two ledger lines"
ledger=$(cat "$L/ledger.jsonl")
before=$(intents)
[ "$before" -gt 0 ] || fail "the real host calls wrote no intent"

# the samples keep the bridged calls' replies
s=$(t samples refund --json)
echo "$s" | python3 -c '
import json, sys
s = json.load(sys.stdin)["samples"]
assert len(s) == 2, s
for i, x in enumerate(s):
    j = x["journal"]
    assert len(j) == 1, j
    assert j[0]["callee"] == "host:ledger_append", j
    assert j[0]["outcome"] == "ok", j
    assert j[0]["reply"] == {"result": {"entry": i + 1}}, j
    assert len(j[0]["args_sha256"]) == 64, j
' || fail "samples lack their journal: $s"
t samples refund | grep -Eq '^#1 v1 [0-9]+ ms ok \{"account":"a1","amount":"5"\} -> \{"entry":1\} \(1 bridged call recorded\)$' ||
	fail "samples' line: $(t samples refund)"

# the same behaviour: each sample's call answered from its recording
out=$(t create --json "$(refund_dir v2 '	/* v2 */' 1)") || fail "create v2: $out"
echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["status"] == "pending", r["status"]
sh = r["shadow"]
assert sh["samples_run"] == 2 and sh["same"] == 2 and sh["differs"] == 0, sh
assert sh["regression"] == 0 and sh["held"] is False and sh["awaits_approval"] is True, sh
' || fail "v2 shadow report: $out"
[ "$(cat "$L/ledger.jsonl")" = "$ledger" ] || fail "a shadow run wrote the ledger"
[ "$(intents)" -eq "$before" ] || fail "a shadow run wrote a bridge_call_intent"

# a bridged call the recording does not hold: unexpected, a difference
extra='	{ tg_args y = TG_ARGS_INIT; tg_value *r2 = NULL;
	  tg_args_str(&y, "account", "audit");
	  tg_args_str(&y, "amount", tg_arg_str(a, "amount", ""));
	  (void)tg_call_tool("host:ledger_append", tg_args_json(&y), &r2);
	  tg_value_free(r2); tg_args_free(&y); }'
out=$(t create --json "$(refund_dir v3 "$extra" 2)") || fail "create v3: $out"
echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["status"] == "pending", r["status"]
sh = r["shadow"]
assert sh["samples_run"] == 2 and sh["same"] == 0 and sh["differs"] == 2, sh
assert sh["regression"] == 0 and sh["held"] is False, sh
for c in sh["cases"]:
    assert c["kind"] == "differs", c
    assert c["paths"] == ["(unexpected bridged call to host:ledger_append)"], c
' || fail "v3 shadow report: $out"
[ "$(cat "$L/ledger.jsonl")" = "$ledger" ] || fail "an unexpected call reached the ledger"
[ "$(intents)" -eq "$before" ] || fail "an unexpected call wrote a bridge_call_intent"
# strict: the same difference, but a pending version is never held
config '"promotion": "strict",'
out=$(t create "$(refund_dir v4 "$extra" 2)") || fail "create v4: $out"
echo "$out" | grep -q '^refund v4: pending' || fail "v4 not pending under strict: $out"
echo "$out" | grep -q 'shadow runs against v1 on 2 recorded calls: 0 same, 2 differ, 0 regressions, 0 fixed' ||
	fail "v4 summary: $out"
echo "$out" | grep -q 'toolgate approve refund@4; shadow runs against v1 found 0 regression(s) and 2 difference(s): toolgate diff refund 1 4 --behaviour$' ||
	fail "the pending reason points the approver at the report: $out"
out=$(t diff refund 1 4 --behaviour) || fail "diff --behaviour: $out"
echo "$out" | grep -q '^  #[0-9]* differs on {"account":"a1","amount":"5"}: \["(unexpected bridged call to host:ledger_append)"\]$' ||
	fail "diff --behaviour names the unexpected call: $out"

# the journal counts in the sample's bytes: within 1 KiB, fewer samples
config '"record_calls": {"calls": 64, "tool_kb": 1},'
t samples purge refund >/dev/null
for i in 1 2 3 4 5 6 7 8; do
	t call refund "{\"account\": \"b$i\", \"amount\": \"1\"}" >/dev/null || fail "call b$i"
done
n=$(t samples refund --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["samples"]
b = sum(len(json.dumps(x["args"], separators=(",", ":"))) + len(json.dumps(x["result"], separators=(",", ":"))) +
        len(json.dumps(x["journal"], separators=(",", ":"))) for x in s)
assert b <= 1024, b
print(len(s))')
[ "$n" -eq 5 ] || fail "1 KiB keeps 5 samples of ~190 bytes with their journals, got $n"

# a recorded call with a bridged call as a test: its reply is the fixture
id=$(t samples refund --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"][0]["id"])')
entry=$(t samples refund --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"][0]["journal"][0]["reply"]["result"]["entry"])')
out=$(t tests add refund --from-sample "$id" --json) || fail "tests add: $out"
echo "$out" | python3 -c '
import json, sys
t = json.load(sys.stdin)["test"]
assert t["host_results"] == {"ledger_append": {"entry": int(sys.argv[1])}}, t
assert t["expect"] == {"entry": int(sys.argv[1])}, t
' "$entry" || fail "the test's fixture: $out"
out=$(t create "$(refund_dir v5 '	/* v5 */' 1)") || fail "create v5: $out"
echo "$out" | grep -q "test \"recorded call #$id\": pass" || fail "v5 ran the added test on its fixture: $out"
[ "$(wc -l <"$L/ledger.jsonl")" -eq 10 ] || fail "the added test reached the ledger"
echo "shadow_bridge: ok"
