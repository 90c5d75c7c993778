#!/bin/sh
# tests/bridge/cli_host.sh TOOLGATE SOURCE_DIR: host tools and per-call
# approval end to end (docs/BRIDGE.md). examples/refund calls the host tool
# ledger_append (examples/ledger, a shell script appending to a ledger in a
# folder chosen here) whose policy is "match": amounts of 3+ digits wait for
# a person. Asserted: the submission's test is answered from its
# host_results fixture (the ledger stays empty); a test without a fixture
# fails on the unexpected call; a small refund runs at once; a large one is
# queued (toolgate approvals lists tool, version, args, caller) and runs
# once approved; a denied one and one nobody answers (timeout) fail with
# "denied" and never reach the ledger; approving another call's id
# approves nothing else; a one-off program's host call always waits for a
# person, even for a "never" tool; every step is an audit entry; bad
# host_tools configs are refused naming the key; with schema_assert_format
# a host tool naming an unknown format is refused and a host call breaking
# an asserted format never reaches the tool or the queue.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_bridge_host_XXXXXX)
cleanup() { kill $(jobs -p) 2>/dev/null || true; rm -rf "$H"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { "$TG" --home "$H/home" "$@"; }
L=$H/ledger
mkdir -p "$L" "$H/home"
lines() { if [ -f "$L/ledger.jsonl" ]; then wc -l <"$L/ledger.jsonl"; else echo 0; fi; }
config() { # APPROVAL_TIMEOUT_MS
	cat >"$H/home/config.json" <<EOC
{
  "call_approval_timeout_ms": $1,
  "host_tools": [
    {"name": "ledger_append", "description": "append to the ledger",
     "input_schema": {"type": "object", "properties": {"account": {"type": "string"},
       "amount": {"type": "string"}}, "required": ["account", "amount"],
       "additionalProperties": false},
     "argv": ["/bin/sh", "$SRC/examples/ledger/ledger_append.sh", "$L"],
     "timeout_ms": 2000, "output_kb": 4,
     "approval": "match", "match": {"amount": ["[0-9][0-9][0-9]*"]}},
    {"name": "fixed", "description": "a fixed result", "input_schema": {"type": "object"},
     "result": {"entry": 42}, "approval": "never"}
  ]
}
EOC
}
# wait_pending ACCOUNT: the id of the pending call whose args name that
# account ("" for any), waiting up to 30 s for it. By its arguments, not its
# place in the queue: on a loaded machine an earlier call may have timed out
# and left the queue before the next one is queued.
wait_pending() {
	end=$(($(date +%s) + 30))
	while [ "$(date +%s)" -le "$end" ]; do
		id=$(t approvals --json | python3 -c "
import json,sys; a=[c for c in json.load(sys.stdin) if '$1' in ('', c['args'].get('account'))]
print(a[0]['id'] if a else '')")
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.05
	done
	return 1
}

t init >/dev/null
config 120000
# the test runs on its fixture: pending (host:ledger_append needs approval)
out=$(t create "$SRC/examples/refund") || fail "create refund: $out"
echo "$out" | grep -q 'refund v1: pending' || fail "refund not pending: $out"
echo "$out" | grep -q 'test "small refund": pass' || fail "fixture test: $out"
[ "$(lines)" -eq 0 ] || fail "a test reached the real host tool"
# a test without a fixture fails on the unexpected call
mkdir -p "$H/nofix"
cp "$SRC/examples/refund/tool.c" "$H/nofix/"
python3 -c "
import json,sys; m=json.load(open(sys.argv[1])); del m['tests'][0]['host_results']
json.dump(m, open(sys.argv[2],'w'))" "$SRC/examples/refund/tool.json" "$H/nofix/tool.json"
rc=0; out=$(t create "$H/nofix") || rc=$?
[ $rc -eq 1 ] || fail "exit $rc for a test with an unexpected host call"
echo "$out" | grep -q 'refund v2: failed' || fail "not failed: $out"
echo "$out" | grep -q 'test "small refund": FAIL: unexpected call to host:ledger_append: the test declares no host_results for it' ||
	fail "unexpected call detail: $out"
[ "$(lines)" -eq 0 ] || fail "an unexpected test call reached the host tool"
t approve refund@1 | grep -q '"host:ledger_append"' || fail "approve refund"

# policy match: a small amount runs at once
out=$(t call refund '{"account":"a1","amount":"12.50"}') || fail "small refund"
[ "$out" = '{"entry":1}' ] || fail "small refund: $out"
grep -q '"caller":"refund@1","args":{"account":"a1","amount":"12.50"}' "$L/ledger.jsonl" || fail "ledger: $(cat "$L/ledger.jsonl")"

# the host call's intent is a durable audit entry before it runs
t log --json --event bridge_call_intent | python3 -c "
import json,sys; a=json.load(sys.stdin); a=a.get('entries',a) if isinstance(a,dict) else a
assert any(e.get('details',{}).get('callee')=='host:ledger_append' for e in a), a" ||
	fail "no bridge_call_intent entry for the small refund"
# fail closed: when that entry cannot be written, the host tool does not run
python3 -c "
import sqlite3,sys; c=sqlite3.connect(sys.argv[1])
c.execute(\"CREATE TRIGGER test_fail BEFORE INSERT ON audit WHEN NEW.event = 'bridge_call_intent' BEGIN SELECT RAISE(ABORT, 'injected intent failure'); END\")
c.commit()" "$H/home/registry.db"
before=$(lines)
rc=0; t call refund '{"account":"a9","amount":"1.00"}' >"$H/outf" 2>"$H/errf" || rc=$?
[ $rc -eq 1 ] || fail "exit $rc when the host call's intent cannot be written"
grep -q 'the audit entry of this call could not be written (.*injected intent failure.*): not run' "$H/outf" "$H/errf" ||
	fail "fail-closed host call: $(cat "$H/outf" "$H/errf")"
[ "$(lines)" -eq "$before" ] || fail "a host call ran without its intent entry"
python3 -c "
import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DROP TRIGGER test_fail'); c.commit()" "$H/home/registry.db"

# a large one waits for a person: approved
t call refund '{"account":"a2","amount":"250"}' >"$H/out2" 2>"$H/err2" &
p2=$!
id=$(wait_pending a2) || fail "the large refund was not queued"
t approvals --json >"$H/q.json"
python3 - "$H/q.json" <<'PY' || fail "approvals listing: $(cat "$H/q.json")"
import json, sys, hashlib
a = json.load(open(sys.argv[1]))
assert len(a) == 1, a
e = a[0]
assert e["tool"] == "host:ledger_append" and e["caller"] == "refund@1", e
assert e["args"] == {"account": "a2", "amount": "250"}, e
assert len(e["callee_version"]) == 64 and len(e["binding"]) == 64, e
canon = json.dumps(e["args"], sort_keys=True, separators=(",", ":"))
want = hashlib.sha256(("toolgate-call-v1\n" + e["callee_version"] + "\n" + canon).encode()).hexdigest()
assert e["binding"] == want, (e["binding"], want)
PY
t approvals | grep -q "^$id  host:ledger_append (version .*) called by refund@1" || fail "approvals text"
[ "$(lines)" -eq 1 ] || fail "the queued call ran before approval"
t approve-call "$id" | grep -q "call $id approved: host:ledger_append called by refund@1" || fail "approve-call"
wait $p2 || fail "approved call failed: $(cat "$H/err2")"
[ "$(cat "$H/out2")" = '{"entry":2}' ] || fail "approved call: $(cat "$H/out2")"
rc=0; t approve-call "$id" 2>"$H/err" || rc=$?
[ $rc -eq 2 ] || fail "approving twice: exit $rc"
grep -q "call $id is no longer pending (approved)" "$H/err" || fail "twice: $(cat "$H/err")"

# denied
t call refund '{"account":"a3","amount":"300"}' >"$H/out3" 2>"$H/err3" &
p3=$!
id3=$(wait_pending a3) || fail "not queued (deny)"
t deny-call "$id3" >/dev/null || fail "deny-call"
rc=0; wait $p3 || rc=$?
[ $rc -eq 1 ] || fail "denied call: exit $rc"
grep -q "ledger_append: a person denied this call (call approval $id3)" "$H/err3" || fail "denied: $(cat "$H/err3")"
[ "$(lines)" -eq 2 ] || fail "a denied call reached the ledger"

# an approval for other args approves nothing else; the other times out
# (4 s: long enough for a5 to be queued and approved on a loaded machine)
config 4000
t call refund '{"account":"a4","amount":"500"}' >"$H/out4" 2>"$H/err4" &
p4=$!
id4=$(wait_pending a4) || fail "not queued (a4)"
t call refund '{"account":"a5","amount":"600"}' >"$H/out5" 2>"$H/err5" &
p5=$!
id5=$(wait_pending a5) || fail "not queued (a5)"
t approve-call "$id5" >/dev/null || fail "approve a5"
wait $p5 || fail "a5: $(cat "$H/err5")"
[ "$(cat "$H/out5")" = '{"entry":3}' ] || fail "a5 result: $(cat "$H/out5")"
rc=0; wait $p4 || rc=$?
[ $rc -eq 1 ] || fail "a4 was not denied: exit $rc"
grep -q "ledger_append: no person approved this call in time: denied (call approval $id4)" "$H/err4" ||
	fail "timeout: $(cat "$H/err4")"
[ "$(lines)" -eq 3 ] || fail "ledger lines $(lines)"
grep -q '"account":"a4"' "$L/ledger.jsonl" && fail "the timed-out call reached the ledger"
t approvals --json | grep -q '"id"' && fail "calls left pending"

# the audit trail
t log >"$H/log"
for ev in "call_queued .*\"approval\":$id," "call_approved .*\"approval\":$id,.*\"decision\":\"approved\"" \
	"call_denied .*\"approval\":$id3," "call_timeout .*\"approval\":$id4," \
	"bridge_call .*\"outcome\":\"ok\".*\"approval\":$id5" \
	"bridge_call .*\"outcome\":\"approval_timeout\".*\"approval\":$id4" \
	"bridge_call .*\"outcome\":\"denied\".*\"approval\":$id3"; do
	grep -q "$ev" "$H/log" || fail "no audit entry $ev"
done

# a one-off program: even a "never" host tool waits for a person
config 120000
t run "$SRC/tests/bridge/run/caller.c" '{"tool":"host:fixed","n":1}' --calls host:fixed >"$H/out6" 2>"$H/err6" &
p6=$!
id6=$(wait_pending "") || fail "one-off host call not queued"
t approvals --json | grep -q '"caller": "program:' || fail "one-off caller"
t deny-call "$id6" >/dev/null
wait $p6 || fail "one-off run: $(cat "$H/err6")"
[ "$(cat "$H/out6")" = '["denied"]' ] || fail "one-off denied: $(cat "$H/out6")"
# and a registered tool calling the "never" tool does not wait
t verify >/dev/null || fail "verify"

# bad configs are refused naming the key
bad() { # JSON MESSAGE
	printf '{"host_tools": [%s]}' "$1" >"$H/home/config.json"
	rc=0; t list 2>"$H/err" >/dev/null || rc=$?
	[ $rc -eq 2 ] || fail "bad config $1: exit $rc"
	grep -qF "$2" "$H/err" || fail "bad config $1: $(cat "$H/err")"
}
base='"name":"x","description":"d","input_schema":{"type":"object"}'
bad "{$base,\"result\":1,\"approval\":\"sometimes\"}" 'host_tools[0].approval: must be never, always or match'
bad "{$base,\"result\":1,\"approval\":\"match\"}" 'host_tools[0].match: is required with approval "match" and only then'
bad "{$base,\"argv\":[\"sh\"],\"approval\":\"never\"}" 'host_tools[0].argv[0]: must be an absolute path'
bad "{$base,\"approval\":\"never\"}" 'host_tools[0]: needs exactly one of "argv" and "result"'
bad "{$base,\"result\":1,\"approval\":\"never\"},{$base,\"result\":2,\"approval\":\"never\"}" 'host_tools[1].name: duplicate'

# schema_assert_format (docs/CONFIG.md): a host tool's schema naming a format
# toolgate cannot assert is refused at load; a host call whose argument
# breaks an asserted format is refused before it is queued or run
printf '{"schema_assert_format": true, "host_tools": [{%s,"result":1,"approval":"never"}]}' \
	'"name":"x","description":"d","input_schema":{"type":"object","properties":{"c":{"type":"string","format":"color"}}}' \
	>"$H/home/config.json"
rc=0; t list 2>"$H/err" >/dev/null || rc=$?
[ $rc -eq 2 ] || fail "unknown format in a host tool's schema: exit $rc"
grep -qF 'host_tools[0].input_schema: input_schema.properties.c.format: unknown format (asserted formats: date, time, date-time, email, ipv4, ipv6, uuid, uri)' "$H/err" ||
	fail "unknown host format: $(cat "$H/err")"
printf '{"schema_assert_format": true, "host_tools": [{%s,"result":{"entry":7},"approval":"never"}]}' \
	'"name":"mailer","description":"d","input_schema":{"type":"object","properties":{"to":{"type":"string","format":"email"}},"required":["to"]}' \
	>"$H/home/config.json"
out=$(t run "$SRC/tests/bridge/run/caller.c" '{"tool":"host:mailer","key":"to","vals":["not an email"],"n":1}' --calls host:mailer) ||
	fail "run with a bad email: $out"
[ "$out" = '["tool_error"]' ] || fail "a bad email reached the host tool or its queue: $out"
[ -z "$(t approvals --json | python3 -c 'import json,sys; print("".join(str(c["id"]) for c in json.load(sys.stdin)))')" ] ||
	fail "a refused host call was queued"
echo ok
