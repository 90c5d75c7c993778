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
check_deep() {
	git --git-dir="$home/store.git" fsck --strict --no-progress > "$work/fsck" 2>&1 || { cat "$work/fsck"; fail "git fsck after trial $1"; }
	grep -E '^(error|fatal|broken|missing)' "$work/fsck" && fail "git fsck reports problems after trial $1"
	for tool in rel_tool rel_cap; do
		"$tg" --home "$home" --json history "$tool" > "$work/hist" 2>"$work/hist.err" || { cat "$work/hist.err"; fail "history $tool after trial $1"; }
		# at most one active version, with verdict pass, the one history names
		bad=$(jget "$work/hist" 'd.versions.filter(v=>v.status==="active"&&v.verdict!=="pass").map(v=>v.version).join(",")')
		[ -z "$bad" ] || fail "$tool: active version(s) $bad did not pass (trial $1)"
		act=$(jget "$work/hist" 'd.versions.filter(v=>v.status==="active").map(v=>v.version).join(",")')
		want=$(jget "$work/hist" 'd.active||""')
		[ "$act" = "$want" ] || fail "$tool: active versions [$act] but history names [$want] (trial $1)"
		# passing statuses only for passing verdicts
		bad=$(jget "$work/hist" 'd.versions.filter(v=>["active","inactive","pending"].includes(v.status)&&v.verdict!=="pass").map(v=>v.version).join(",")')
		[ -z "$bad" ] || fail "$tool: versions $bad have a passing status without verdict pass (trial $1)"
		# versions contiguous from 1
		got=$(jget "$work/hist" 'd.versions.map(v=>v.version).sort((a,b)=>a-b).join(",")')
		n=$(jget "$work/hist" 'd.versions.length')
		[ "$got" = "$(seq -s, 1 "$n")" ] || fail "$tool: versions $got not contiguous (trial $1)"
	done
	while read -r tool ver verdict; do
		"$tg" --home "$home" --json show "$tool@$ver" > "$work/show" 2>&1 || fail "reported $tool v$ver is missing after trial $1"
		got=$(jget "$work/show" 'd.version')
		[ "$got" = "$ver" ] || fail "$tool@$ver shows version $got"
		vd=$(jget "$work/show" 'd.verdict')
		[ "$vd" = "$verdict" ] || fail "$tool@$ver reported verdict $verdict, now shows $vd (trial $1)"
	done < "$work/reported"
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
			v=$(jget "$work/op.out" 'd.version'); n=$(jget "$work/op.out" 'd.name')
			vd=$(jget "$work/op.out" 'd.verdict')
			[ -n "$v" ] || fail "trial $i: create reported no version"
			echo "$n $v $vd" >> "$work/reported" ;;
		rollback|approve)
			# exit 2: nothing to roll back to / not pending (a killed
			# approve may have committed); anything else is a failure
			if [ $rc -eq 0 ]; then
				v=$(jget "$work/op.out" 'd.version'); n=$(jget "$work/op.out" 'd.name')
				echo "$n $v pass" >> "$work/reported"
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
