#!/bin/sh
# tests/registry/sweep.sh TOOLGATE SQLEXEC: what killed processes leave in
# the store goes at the next open of the registry, even by commands that
# never open the store (list, call): a pull's quarantine whose lock nobody
# holds and a gc's libgit2 temporary pack (objects/pack/pack_git2_*) while
# no packer holds toolgate-pack.lock. A live one (its flock held by a
# running process) is kept.
. "$(dirname "$0")/lib.sh"

command -v flock >/dev/null || { echo "no flock(1): skipped"; exit 77; }
store=$HOME_DIR/store.git
d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create"

# what a killed pull leaves: the quarantine with its (unheld) lock file
plant_quarantine() { # NAME
	mkdir -p "$store/toolgate-quarantine-$1/objects/pack"
	: >"$store/toolgate-quarantine-$1/toolgate.lock"
	head -c 4096 /dev/zero >"$store/toolgate-quarantine-$1/objects/pack/pack_git2_q1"
}
# what a killed gc leaves: its lock file (unheld) and libgit2's temp pack
plant_pack() { # NAME
	: >"$store/toolgate-pack.lock"
	head -c 4096 /dev/zero >"$store/objects/pack/pack_git2_$1"
}

plant_quarantine dead01
plant_pack dead01
run tg list
expect_rc 0 "list"
checks=$((checks + 1))
[ ! -e "$store/toolgate-quarantine-dead01" ] || fail "list left the dead pull's quarantine"
checks=$((checks + 1))
[ ! -e "$store/objects/pack/pack_git2_dead01" ] || fail "list left the dead gc's temporary pack"

plant_quarantine dead02
run tg call word_count '{"text":"a b"}'
expect_rc 0 "call"
checks=$((checks + 1))
[ ! -e "$store/toolgate-quarantine-dead02" ] || fail "call left the dead pull's quarantine"

# live owners: a pull's quarantine and a packer, their flocks held
plant_quarantine live01
plant_pack live01
# hold LOCKFILE's flock in a process whose pid is $! (the lock is its fd 9)
hold() { sh -c 'exec 9>>"$1" && flock 9 && exec sleep 30' sh "$1" & }
hold "$store/toolgate-quarantine-live01/toolgate.lock"
qpid=$!
hold "$store/toolgate-pack.lock"
ppid=$!
# both flocks taken before the open
n=0
while [ $n -lt 100 ] && { flock -n "$store/toolgate-pack.lock" true ||
	flock -n "$store/toolgate-quarantine-live01/toolgate.lock" true; }; do
	sleep 0.1
	n=$((n + 1))
done
checks=$((checks + 1))
[ $n -lt 100 ] || fail "the holders did not take their flocks"
run tg list
expect_rc 0 "list beside live owners"
checks=$((checks + 1))
[ -d "$store/toolgate-quarantine-live01" ] || fail "a live pull's quarantine was removed"
checks=$((checks + 1))
[ -f "$store/objects/pack/pack_git2_live01" ] || fail "a live packer's temporary pack was removed"
kill "$qpid" "$ppid"
wait "$qpid" "$ppid" 2>/dev/null
# their owners gone: the next open sweeps them
run tg list
checks=$((checks + 1))
[ ! -e "$store/toolgate-quarantine-live01" ] || fail "the quarantine stayed after its owner died"
checks=$((checks + 1))
[ ! -e "$store/objects/pack/pack_git2_live01" ] || fail "the temporary pack stayed after its packer died"
run tg verify
expect_rc 0 "verify after the sweeps"
finish sweep
