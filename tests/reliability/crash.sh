#!/bin/sh
# tests/reliability/crash.sh TOOLGATE: crash consistency. Kills `toolgate
# create`, `rollback` and `approve` with SIGKILL at points spread across the
# pipeline: each trial draws its delay uniformly in 0..1.2x the measured
# length of that operation (manifest, analysis, store commit, sandboxed
# build, tests, SQLite transaction, activation all get hit; the last 1/6 lets
# some finish). After every trial it asserts that `toolgate verify` passes;
# every 25 trials and at the end, that `git fsck --strict` is clean, that no
# version is active that did not pass (at most one active version per tool,
# the one history names, with verdict pass), and that every operation that
# reported success is still there: each create's version with its verdict,
# each rollback/approve target still a passing version. At the end: no
# process of the killed runs is left (their sandboxes die with them).
# TG_CRASH_TRIALS sets the count (default 200).
set -u
tg=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
trials=${TG_CRASH_TRIALS:-200}
work=$(mktemp -d /tmp/tg_crash.XXXXXX)
home=$work/home
trap 'rm -rf "$work"' EXIT
# a run stopped by ctest's timeout leaves nothing behind either
trap 'exit 143' TERM INT
mkdir -p "$work/ws"
"$tg" --home "$home" init >/dev/null || fail "init"
# crash consistency, not quotas or rate limits: hundreds of creates, a failing
# fixture among them, in a few minutes
printf '{"workspace": "%s", "max_rejected_per_tool_hour": 0, "home_max_creates_per_minute": 0, "session_max_creates_per_minute": 0}\n' "$work/ws" > "$home/config.json"

# Baseline: measure each operation once, uninterrupted.
t0=$(now_ms); "$tg" --home "$home" --json create "$here/fixtures/good" > "$work/out" || fail "baseline create"
t_create=$(( $(now_ms) - t0 ))
"$tg" --home "$home" --json create "$here/fixtures/cap" > "$work/out"; rc=$?
[ $rc -le 1 ] || fail "baseline create of a capability tool: exit $rc"
[ "$(jget "$work/out" 'd.status')" = pending ] || fail "capability tool not pending: $(cat "$work/out")"
"$tg" --home "$home" --json create "$here/fixtures/good" > "$work/out" || fail "create v2"
t0=$(now_ms); "$tg" --home "$home" --json rollback rel_tool > "$work/out" || fail "baseline rollback"
t_rollback=$(( $(now_ms) - t0 ))
t0=$(now_ms); "$tg" --home "$home" --json approve rel_cap@1 > "$work/out" || fail "baseline approve"
t_approve=$(( $(now_ms) - t0 ))
echo "crash: create takes ${t_create} ms, rollback ${t_rollback} ms, approve ${t_approve} ms; $trials trials"

: > "$work/reported"   # lines: tool version verdict
: > "$work/pids"
check_state() {
	"$tg" --home "$home" verify > "$work/verify" 2>&1 || { cat "$work/verify"; fail "verify after trial $1"; }
}
# One node process per tool checks its history and every operation reported
# on it (a `show` and two node processes per reported operation made each
# check grow with the trials done: under load the run outgrew its ctest
# timeout; history holds every version with its verdict).
hist_check() {
	node -e 'const fs=require("fs");const [hf,tool,rf]=process.argv.slice(1);
const d=JSON.parse(fs.readFileSync(hf,"utf8"));const v=d.versions;const bad=(m)=>{console.log(m);process.exit(0)};
const act=v.filter(x=>x.status==="active");
const ap=act.filter(x=>x.verdict!=="pass").map(x=>x.version);
if(ap.length)bad(`${tool}: active version(s) ${ap} did not pass`);
if(act.map(x=>x.version).join(",")!==String(d.active||""))bad(`${tool}: active versions [${act.map(x=>x.version)}] but history names [${d.active||""}]`);
const ps=v.filter(x=>["active","inactive","pending"].includes(x.status)&&x.verdict!=="pass").map(x=>x.version);
if(ps.length)bad(`${tool}: versions ${ps} have a passing status without verdict pass`);
const nums=v.map(x=>x.version).sort((a,b)=>a-b);
if(nums.some((n,i)=>n!==i+1))bad(`${tool}: versions ${nums} not contiguous`);
const by=new Map(v.map(x=>[x.version,x]));
for(const l of fs.readFileSync(rf,"utf8").split("\n")){const [t,ver,vd]=l.split(" ");if(t!==tool)continue;
const x=by.get(Number(ver));if(!x)bad(`reported ${t} v${ver} is missing`);
if(x.verdict!==vd)bad(`${t}@${ver} reported verdict ${vd}, now shows ${x.verdict}`);}' "$1" "$2" "$3"
}
check_deep() {
	git --git-dir="$home/store.git" fsck --strict --no-progress > "$work/fsck" 2>&1 || { cat "$work/fsck"; fail "git fsck after trial $1"; }
	grep -E '^(error|fatal|broken|missing)' "$work/fsck" && fail "git fsck reports problems after trial $1"
	for tool in rel_tool rel_cap; do
		"$tg" --home "$home" --json history "$tool" > "$work/hist" 2>"$work/hist.err" || { cat "$work/hist.err"; fail "history $tool after trial $1"; }
		msg=$(hist_check "$work/hist" "$tool" "$work/reported")
		[ -z "$msg" ] || fail "$msg (trial $1)"
	done
}

i=1; killed=0; finished=0
while [ $i -le "$trials" ]; do
	op=$(( i % 6 ))
	case $op in
	0) set -- create "$here/fixtures/good"; max=$t_create ;;
	1) set -- create "$here/fixtures/bad_test"; max=$t_create ;;
	2) set -- create "$here/fixtures/evil"; max=$t_create ;;
	3) set -- rollback rel_tool; max=$t_rollback ;;
	*) "$tg" --home "$home" --json history rel_cap > "$work/hist" 2>/dev/null || fail "history rel_cap"
	   pend=$(jget "$work/hist" 'd.versions.filter(v=>v.status==="pending").map(v=>v.version)[0]')
	   if [ -n "$pend" ]; then set -- approve "rel_cap@$pend"; max=$t_approve
	   else set -- create "$here/fixtures/cap"; max=$t_create; fi ;;
	esac
	# spread kill points over 0..1.2x the operation's length
	delay=$(( $(od -An -N2 -tu2 /dev/urandom) % (max * 12 / 10 + 1) ))
	"$tg" --home "$home" --json "$@" > "$work/op.out" 2> "$work/op.err" &
	pid=$!
	echo $pid >> "$work/pids"
	msleep "$delay"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null; rc=$?
	if [ $rc -eq 137 ]; then
		killed=$(( killed + 1 ))
	else
		finished=$(( finished + 1 ))
		case "$1" in
		create)
			[ $rc -le 1 ] || { cat "$work/op.err"; fail "trial $i: create exit $rc"; }
			line=$(jget "$work/op.out" 'd.version?[d.name,d.version,d.verdict].join(" "):""')
			[ -n "$line" ] || fail "trial $i: create reported no version"
			echo "$line" >> "$work/reported" ;;
		rollback|approve)
			# exit 2: nothing to roll back to / not pending (a killed
			# approve may have committed); anything else is a failure
			if [ $rc -eq 0 ]; then
				jget "$work/op.out" '[d.name,d.version,"pass"].join(" ")' >> "$work/reported"
			elif [ $rc -ne 2 ]; then
				cat "$work/op.err"; fail "trial $i: $1 exit $rc"
			fi ;;
		esac
	fi
	check_state $i
	[ $(( i % 25 )) -eq 0 ] && check_deep $i
	i=$(( i + 1 ))
done
check_deep end
# no process of the killed runs (or of their sandboxes) is left
sleep 0.5
# (a pid is ours only while its command line names this test's home: other
# toolgate processes on the host may have been given a recycled pid)
for p in $(cat "$work/pids"); do
	[ -d /proc/$p ] && [ "$(cat /proc/$p/comm 2>/dev/null)" = toolgate ] &&
		{ tr '\0' ' ' < /proc/$p/cmdline; } 2>/dev/null | grep -qF "$home" &&
		fail "toolgate $p still runs"
done
for d in /proc/[0-9]*; do
	p=${d#/proc/}
	[ "$p" = "$$" ] && continue
	exe=$(readlink "$d/exe" 2>/dev/null || true)
	cmd=$( { tr '\0' ' ' < "$d/cmdline"; } 2>/dev/null || true)
	case "$exe $cmd" in
	*"$work"*) fail "process $p of a killed run is left: $exe $cmd" ;;
	esac
done
echo "crash: $trials trials ($killed killed, $finished finished), $(wc -l < "$work/reported") successful operations checked: ok"
