#!/bin/sh
# tests/registry/build_slots.sh TOOLGATE SQLEXEC: the host-wide cap on
# concurrent builds (max_concurrent_builds, default 2; registry/exec/slots.c).
# The test holds both slot files itself with flock(1), in the folder named
# by TOOLGATE_RUN_DIR: a create then waits (still running after 3 s, no
# build folder, no version), proceeds when one slot is released, and ends
# active. With max_concurrent_builds 0 a create never looks at the slots.
. "$(dirname "$0")/lib.sh"

export TOOLGATE_RUN_DIR=$WORK/run
mkdir -p "$TOOLGATE_RUN_DIR"
run tg init
d=$(tool_dir word_count)

hold() { # N: hold build-slot.N until the FIFO is written
	mkfifo "$WORK/go.$1"
	flock "$TOOLGATE_RUN_DIR/build-slot.$1" sh -c "echo held >$WORK/held.$1; cat $WORK/go.$1 >/dev/null" &
}
hold 0
hold 1
n=0
while [ ! -s "$WORK/held.0" ] || [ ! -s "$WORK/held.1" ]; do
	n=$((n + 1))
	[ $n -lt 100 ] || { echo "FAIL: the slots were not taken"; exit 1; }
	sleep 0.1
done

tg create "$d" >"$WORK/create.out" 2>"$WORK/create.err" &
pid=$!
sleep 3
checks=$((checks + 1))
kill -0 "$pid" 2>/dev/null || fail "the create did not wait for a slot: $(cat "$WORK/create.out" "$WORK/create.err")"
checks=$((checks + 1))
ls "$HOME_DIR/cache" | grep -q '^\.build-' && fail "a build started while both slots were held"
run tg history word_count
expect_rc 2 "no version while waiting"

echo go >"$WORK/go.0" # release slot 0
wait "$pid"
rc=$?
expect_rc 0 "the create proceeds once a slot is free"
checks=$((checks + 1))
grep -q '^word_count v1: active' "$WORK/create.out" || fail "not active: $(cat "$WORK/create.out")"

# the cap off: a create while both slots are held again does not wait
printf '{"max_concurrent_builds": 0}\n' >"$HOME_DIR/config.json"
rm -f "$WORK/go.0" "$WORK/held.0"
hold 0
n=0
while [ ! -s "$WORK/held.0" ]; do
	n=$((n + 1))
	[ $n -lt 100 ] || { echo "FAIL: slot 0 was not taken again"; exit 1; }
	sleep 0.1
done
printf '\n/* v2 */\n' >>"$d/word_count.c"
run tg create "$d"
expect_out '^word_count v2: active' "no cap: builds without a slot"
echo go >"$WORK/go.0"
echo go >"$WORK/go.1"
wait
finish build_slots
