#!/bin/sh
# tests/sandbox/gvisor_tool.sh TOOLGATE EXAMPLES: the sandbox backend per tool
# (`toolgate backend`, registry/record/backend.c) against the real runsc.
# word_pair (native) calls word_count put under gVisor: the bridged callee
# runs under runsc (TG_RUNSC pointing nowhere fails it) and is audited as
# any bridged call; word_pair itself under gVisor calls it too (fd 3
# through the shim and the relay). The choice is audited, shown by show
# and status and in each call_result entry; native under a gvisor home needs
# --weaken; an agent's manifest cannot name a backend. Exits 77 (skipped)
# when runsc cannot run here.
set -u
tg=$1
ex=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
h=$tmp/home
t() { "$tg" --home "$h" "$@"; }

. "$(dirname "$0")/check.sh"

t init >/dev/null 2>&1 || { echo "FAIL init"; exit 1; }
if ! t doctor 2>&1 | grep -q '^ok    gvisor'; then
	echo "SKIP: runsc cannot run here: $(t doctor 2>&1 | grep gvisor)"
	exit 77
fi
t create "$ex/word_count" >/dev/null 2>&1 || { echo "FAIL create word_count"; exit 1; }
t create "$ex/word_pair" >/dev/null 2>&1 || { echo "FAIL create word_pair"; exit 1; }
t approve word_pair@1 >/dev/null 2>&1 || { echo "FAIL approve word_pair"; exit 1; }

# showing and bad input
check "show: the home's default" "word_count: native (the home's default, config.json sandbox_backend)" "$(t backend word_count 2>&1)"
out=$(t backend nosuch gvisor 2>&1); rc=$?
check "no such tool (exit 2)" "2 toolgate: backend: no tool named nosuch" "$rc $out"
out=$(t backend word_count kvm 2>&1); rc=$?
check "bad backend (exit 2)" "2 toolgate: backend: backend kvm: must be native or gvisor (see 'toolgate backend --help')" "$rc $out"
out=$(TG_RUNSC=/nonexistent t backend word_count gvisor 2>&1); rc=$?
check "gvisor without runsc is refused (exit 3)" "3 toolgate: backend: gvisor: TG_RUNSC=/nonexistent: No such file or directory" "$rc $out"
check "nothing was set" "0" "$(t log --event backend | wc -l)"

# word_count under gVisor, word_pair native: a native caller, a gVisor callee
check "set gvisor" "word_count: gvisor (set for this tool)" "$(t backend word_count gvisor 2>&1)"
check "audited" '{"name":"word_count","backend":"gvisor","source":"tool","home":"native","was":"native","was_source":"home"}' \
	"$(t log --event backend | awk '{print $NF}')"
check "json" '{"name": "word_count", "backend": "gvisor", "source": "tool", "home": "native"}' \
	"$(t backend --json word_count | tr -d '\n' | sed 's/  */ /g; s/{ /{/; s/ }/}/')"
check "show" "backend:      gvisor (toolgate backend)" "$(t show word_count | grep '^backend:')"
check "show word_pair" "backend:      native (the home's default, config.json)" "$(t show word_pair | grep '^backend:')"
out=$(TG_RUNSC=/nonexistent t doctor 2>&1); rc=$?
check "doctor: runsc missing fails when a tool needs it (exit 1)" "1 fail  gvisor     runsc is not installed but 1 active tool is set to gvisor (toolgate backend)" \
	"$rc $(echo "$out" | grep 'gvisor  ')"
check "doctor: the reason it is needed" "ok    gvisor     works: (toolgate backend gvisor)" \
	"$(t doctor 2>&1 | grep '^ok    gvisor' | sed 's|/[^ ]*runsc works: platform [a-z]* (.*); a run costs about [0-9]* ms (runsc do /bin/true)|works:|')"
check "status" "backend   home default native (config.json); active tools: 1 gvisor (1 by toolgate backend), 1 native (0 by --weaken)" \
	"$(t status | grep '^backend')"
check "call under gvisor" '{"words":3,"lines":1,"chars":5}' "$(t call word_count '{"text":"a b c"}' 2>&1)"
out=$(TG_RUNSC=/nonexistent t call word_count '{"text":"a b c"}' 2>&1)
check "the call went through runsc" "toolgate: call: sandbox: gvisor: TG_RUNSC=/nonexistent: No such file or directory" "$out"
check "call_result audit says gvisor" '{"call":6,"version":1,"ok":false,"wall_ms":0,"reason":"run_failed","backend":"gvisor"}' \
	"$(t log --event call_result --tool word_count | tail -1 | awk '{print $NF}')"
check "native caller, bridged gVisor callee" '{"words":4}' "$(t call word_pair '{"a":"one two three","b":"four"}' 2>&1)"
check "the callee's results under gvisor" 2 "$(t log --event call_result --tool word_count | tail -2 | grep -c '"ok":true,.*"reason":"exited","backend":"gvisor"')"
check "the caller's result native" 1 "$(t log --event call_result --tool word_pair | tail -1 | grep -c '"ok":true,.*"backend":"native"')"
check "bridged calls audited ok" 2 "$(t log --event bridge_call | grep -c '"caller":"word_pair@1","callee":"word_count".*"outcome":"ok".*"callee_backend":"gvisor"}$')"
out=$(TG_RUNSC=/nonexistent t call word_pair '{"a":"x","b":"y"}' 2>&1)
check "the bridged callee went through runsc" "toolgate: call word_pair: word_count failed: sandbox: gvisor: TG_RUNSC=/nonexistent: No such file or directory" "$out"
check "that bridged call audited failed" 1 "$(t log --event bridge_call | tail -1 | grep -c '"callee":"word_count".*"outcome":"failed"')"
# a create's tests of the tool run under its backend
out=$(TG_RUNSC=/nonexistent t create "$ex/word_count_v2" 2>&1)
check "a create's tests under the tool's backend" 1 "$(echo "$out" | grep -c 'TG_RUNSC=/nonexistent')"

# word_pair under gVisor too: a bridged caller under gVisor (the shim and
# the relay) calling a gVisor callee
check "set word_pair gvisor" "word_pair: gvisor (set for this tool)" "$(t backend word_pair gvisor 2>&1)"
out=$(t call word_pair '{"a":"x","b":"y"}' 2>&1); rc=$?
check "a bridged caller under gvisor calls" '0 {"words":2}' "$rc $out"
check "its audit entry says gvisor" 1 "$(t log --event call_result --tool word_pair | tail -1 | grep -c '"ok":true,.*"reason":"exited","backend":"gvisor"')"
check "its bridged calls audited ok" 2 "$(t log --event bridge_call | tail -2 | grep -c '"caller":"word_pair@1","callee":"word_count".*"outcome":"ok".*"callee_backend":"gvisor"}$')"
check "native follows the home again" "word_pair: native (the home's default, config.json sandbox_backend)" "$(t backend word_pair native 2>&1)"
check "and calls" '{"words":2}' "$(t call word_pair '{"a":"x","b":"y"}' 2>&1)"

# a gvisor home: a tool natively only by --weaken, audited
echo '{"sandbox_backend":"gvisor"}' >"$h/config.json"
check "gvisor home" "word_pair: gvisor (the home's default, config.json sandbox_backend)" "$(t backend word_pair 2>&1)"
out=$(t backend word_pair native 2>&1); rc=$?
check "weakening needs --weaken (exit 2)" "2 toolgate: backend: the home's default (config.json sandbox_backend) is gvisor: running word_pair natively weakens it; say so with --weaken" "$rc $out"
out=$(t backend word_pair gvisor --weaken 2>&1); rc=$?
check "--weaken goes with native only" "2 toolgate: backend: --weaken goes with native only (see 'toolgate backend --help')" "$rc $out"
check "weakened" "word_pair: native (set for this tool with --weaken, whatever the home says)" "$(t backend word_pair native --weaken 2>&1)"
check "the exception audited" '{"name":"word_pair","backend":"native","source":"exception","home":"gvisor","was":"gvisor","was_source":"home"}' \
	"$(t log --event backend --tool word_pair | tail -1 | awk '{print $NF}')"
check "status under a gvisor home" "backend   home default gvisor (config.json); active tools: 1 gvisor (1 by toolgate backend), 1 native (1 by --weaken)" \
	"$(t status | grep '^backend')"
check "the exception calls its gVisor callee" '{"words":4}' "$(t call word_pair '{"a":"one two three","b":"four"}' 2>&1)"
check "gvisor for the tool, whatever the home" "word_pair: gvisor (set for this tool)" "$(t backend word_pair gvisor 2>&1)"

# an agent cannot choose: the manifest has no such key
mkdir "$tmp/m"
cp "$ex/word_count/tool.c" "$tmp/m/"
sed 's/^{/{"sandbox_backend":"native",/' "$ex/word_count/tool.json" >"$tmp/m/tool.json"
out=$(t create "$tmp/m" 2>&1); rc=$?
check "a manifest cannot name a backend (exit 2)" '2 toolgate: create: manifest: unknown key "sandbox_backend"' "$rc $out"
t verify >/dev/null 2>&1
check "verify" 0 $?
[ "$fails" -eq 0 ] || exit 1
