#!/bin/sh
# tests/sandbox/gvisor_bridge.sh TOOLGATE SOURCE_DIR: the bridge (fd 3) of a
# program under gVisor (sandbox/shim/shim.c, sandbox/gvisor_relay.c) is
# governed exactly as a native one's. The same one-off program
# (tests/bridge/run/caller.c) runs in a native home and in a gvisor home:
# the same answers (the call cap's "limit", "denied" for a tool outside
# --calls, "bridge" with no calls at all, two 300 KB requests through the
# relay's 64 KiB buffers) and the same audit entries but
# for times, commits and the backend names. A registered tool under gVisor
# (word_pair, toolgate backend) calls word_count natively: its answer, its
# bridge_call entries and its call_result. Exits 77 (skipped) when runsc
# cannot run here.
set -u
tg=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$src/tests/bridge/run/caller.c

. "$(dirname "$0")/check.sh"

# the audit entries of a home, with what differs between homes taken out
entries() {
	"$tg" --home "$1" log | awk '{ $1 = $2 = $3 = $4 = ""; print }' |
		sed 's/"wall_ms":[0-9]*//; s/"callee_commit":"[0-9a-f]*"//; s/"report_sha256":"[0-9a-f]*"//;
		     s/"backend":"[a-z]*"//; s/"callee_backend":"[a-z]*"//; s/^ *//' |
		grep -E '^cli (bridge_call|run|call|call_result) '
}

for be in native gvisor; do
	h=$tmp/$be
	t() { "$tg" --home "$h" "$@"; }
	t init >/dev/null 2>&1 || { echo "FAIL init"; exit 1; }
	if [ $be = gvisor ] && ! t doctor 2>&1 | grep -q '^ok    gvisor'; then
		echo "SKIP: runsc cannot run here: $(t doctor 2>&1 | grep gvisor)"
		exit 77
	fi
	t create "$src/examples/word_count" >/dev/null 2>&1 || { echo "FAIL create word_count"; exit 1; }
	echo "{\"sandbox_backend\":\"$be\"}" >"$h/config.json"
	check "$be: two calls" '["ok:2","ok:1"]' \
		"$(t run "$P" '{"n":2,"vals":["a b","c"]}' --calls word_count 2>/dev/null)"
	check "$be: the call cap: the 4th of 3 is limit" '["ok:2","ok:2","ok:2","limit"]' \
		"$(t run "$P" '{"n":4}' --calls word_count --max-tool-calls 3 2>/dev/null)"
	check "$be: a tool outside --calls is denied" '["denied","denied"]' \
		"$(t run "$P" '{"n":2,"tool":"stats"}' --calls word_count 2>/dev/null)"
	check "$be: no calls, no bridge" '["bridge"]' "$(t run "$P" '{"n":1}' 2>/dev/null)"
	# 300 KB requests, each more than the relay's 64 KiB buffers hold
	python3 -c 'import json; print(json.dumps({"n": 2, "vals": ["ab " * 100000]}))' >"$tmp/big.json"
	check "$be: two 300 KB requests" '["ok:100000","ok:100000"]' \
		"$(t run "$P" - --calls word_count <"$tmp/big.json" 2>/dev/null)"
	check "$be: each run's backend" "$be $be $be $be $be" \
		"$(t log --event run | sed 's/.*"backend":"\([a-z]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//')"
	check "$be: the callee's backend" "$be $be $be $be $be $be $be" \
		"$(t log --event bridge_call | grep '"outcome":"ok"' | sed 's/.*"callee_backend":"\([a-z]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//')"
	entries "$h" >"$tmp/$be.log"
	t verify >/dev/null 2>&1
	check "$be: verify" 0 $?
done
check "the same audit entries natively and under gVisor" "" "$(diff "$tmp/native.log" "$tmp/gvisor.log")"
check "as many as expected (5 runs, 10 bridged calls, 7 callee calls and results)" 29 "$(wc -l <"$tmp/gvisor.log")"
check "the refusals audited" "1 2" \
	"$(grep -c '"outcome":"limit"' "$tmp/gvisor.log") $(grep -c '"callee":"stats".*"outcome":"denied"' "$tmp/gvisor.log")"

# a registered tool under gVisor calling a native one
h=$tmp/native
t() { "$tg" --home "$h" "$@"; }
t create "$src/examples/word_pair" >/dev/null 2>&1 || { echo "FAIL create word_pair"; exit 1; }
t approve word_pair@1 >/dev/null 2>&1 || { echo "FAIL approve word_pair"; exit 1; }
t backend word_pair gvisor >/dev/null 2>&1
check "word_pair under gVisor calls word_count" '{"words":4}' \
	"$(t call word_pair '{"a":"one two three","b":"four"}' 2>&1)"
check "its result under gvisor" 1 \
	"$(t log --event call_result --tool word_pair | tail -1 | grep -c '"ok":true,.*"reason":"exited","backend":"gvisor"')"
check "two bridged calls to the native callee" 2 \
	"$(t log --event bridge_call | tail -2 | grep -c '"caller":"word_pair@1","callee":"word_count".*"outcome":"ok".*"callee_backend":"native"}$')"
check "the callee's results native" 2 \
	"$(t log --event call_result --tool word_count | tail -2 | grep -c '"ok":true,.*"reason":"exited","backend":"native"')"
[ "$fails" -eq 0 ] || exit 1
