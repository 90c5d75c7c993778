#!/bin/sh
# tests/reliability/crash.sh TOOLGATE: crash consistency. Kills `toolgate
# create`, `rollback` and `approve` with SIGKILL at points spread across the
# pipeline (delays drawn up to the measured length of each operation), then
# asserts after every trial that `toolgate verify` passes, and at the end
# (and every 25 trials) that `git fsck` is clean, that no version is active
# that did not pass, and that every submission that reported success is
# present with the status it reported. TG_CRASH_TRIALS sets the count (200).
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
printf '{"workspace": "%s"}\n' "$work/ws" > "$home/config.json"

# Baseline: measure each operation once, uninterrupted.
t0=$(now_ms); "$tg" --home "$home" --json create "$here/fixtures/good" > "$work/out" || fail "baseline create"
t_create=$(( $(now_ms) - t0 ))
"$tg" --home "$home" --json create "$here/fixtures/cap" > "$work/out"; rc=$?
[ $rc -le 1 ] || fail "baseline create of a capability tool: exit $rc"
t0=$(now_ms); "$tg" --home "$home" --json create "$here/fixtures/good" > "$work/out" || fail "create v2"
t0=$(now_ms); "$tg" --home "$home" --json rollback rel_tool > "$work/out" || fail "baseline rollback"
t_rollback=$(( $(now_ms) - t0 ))
echo "crash: create takes ${t_create} ms, rollback ${t_rollback} ms; $trials trials"

: > "$work/reported"   # lines: tool version status
check_state() {
	"$tg" --home "$home" verify > "$work/verify" 2>&1 || { cat "$work/verify"; fail "verify after trial $1"; }
}
check_deep() {
	git --git-dir="$home/store.git" fsck --strict --no-progress > "$work/fsck" 2>&1 || { cat "$work/fsck"; fail "git fsck after trial $1"; }
	grep -E '^(error|fatal|broken|missing)' "$work/fsck" && fail "git fsck reports problems after trial $1"
	for tool in rel_tool rel_cap; do
		"$tg" --home "$home" --json show "$tool" > "$work/show" 2>/dev/null || continue
		st=$(jget "$work/show" 'd.status')
		if [ "$st" = active ]; then
			vd=$(jget "$work/show" 'd.verdict')
			[ "$vd" = pass ] || fail "$tool active with verdict $vd after trial $1"
		fi
	done
	while read -r tool ver status; do
		"$tg" --home "$home" --json show "$tool@$ver" > "$work/show" 2>&1 || fail "reported $tool v$ver is missing after trial $1"
		got=$(jget "$work/show" 'd.version')
		[ "$got" = "$ver" ] || fail "$tool@$ver shows version $got"
		vd=$(jget "$work/show" 'd.verdict')
		case "$status" in
		active|inactive|pending) [ "$vd" = pass ] || fail "$tool@$ver reported $status but verdict $vd" ;;
		esac
	done < "$work/reported"
}

i=1
while [ $i -le "$trials" ]; do
	op=$(( i % 5 ))
	case $op in
	0) set -- create "$here/fixtures/good"; max=$t_create ;;
	1) set -- create "$here/fixtures/bad_test"; max=$t_create ;;
	2) set -- create "$here/fixtures/evil"; max=$t_create ;;
	3) set -- rollback rel_tool; max=$t_rollback ;;
	4) pend=$("$tg" --home "$home" --json history rel_cap 2>/dev/null > "$work/hist" &&
		  jget "$work/hist" '(d.versions||d).filter(v=>v.status==="pending").map(v=>v.version)[0]')
	   if [ -n "$pend" ]; then set -- approve "rel_cap@$pend"; max=$t_rollback
	   else set -- create "$here/fixtures/cap"; max=$t_create; fi ;;
	esac
	# spread kill points over 0..1.2x the operation's length
	delay=$(( $(od -An -N2 -tu2 /dev/urandom) % (max * 12 / 10 + 1) ))
	"$tg" --home "$home" --json "$@" > "$work/op.out" 2> "$work/op.err" &
	pid=$!
	msleep "$delay"
	kill -9 $pid 2>/dev/null
	wait $pid; rc=$?
	if [ $rc -ne 137 ] && [ "$1" = create ]; then
		[ $rc -le 1 ] || { cat "$work/op.err"; fail "trial $i: create exit $rc"; }
		v=$(jget "$work/op.out" 'd.version'); s=$(jget "$work/op.out" 'd.status'); n=$(jget "$work/op.out" 'd.name')
		[ -n "$v" ] || fail "trial $i: create reported no version"
		echo "$n $v $s" >> "$work/reported"
	fi
	check_state $i
	[ $(( i % 25 )) -eq 0 ] && check_deep $i
	i=$(( i + 1 ))
done
check_deep end
echo "crash: $trials trials, $(wc -l < "$work/reported") completed submissions checked: ok"
