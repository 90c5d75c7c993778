#!/bin/sh
# tests/registry/run_slots.sh TOOLGATE SQLEXEC: the host-wide cap on
# concurrent runs (max_concurrent_runs, default twice the cores;
# registry/exec/slots.c). With the cap at 1, a call of a spinning tool holds the
# host's only run slot (run-slot.0, in TOOLGATE_RUN_DIR): a second call
# whose tool has a 1 s timeout waits that long and is refused with the exact
# message naming the key, the refusal logged as the call's outcome; a second
# call whose tool has a 4 s timeout waits and then runs once the first call
# ends. With the cap at 0 nothing waits.
. "$(dirname "$0")/lib.sh"

export TOOLGATE_RUN_DIR=$WORK/run
mkdir -p "$TOOLGATE_RUN_DIR"
run tg init
# spin hangs on {"spin":true} by design: no property tests, which would
# find exactly that and fail its create
printf '{"property_tests": 0}\n' >"$HOME_DIR/config.json"
mk() { # NAME TIMEOUT_MS: the spin tool under another name and timeout
	d=$WORK/src/$1
	mkdir -p "$d"
	cp "$HERE/tools/spin.c" "$d/"
	sed -e "s/\"name\": \"spin\"/\"name\": \"$1\"/" \
	    -e "s/\"timeout_ms\": 4000/\"timeout_ms\": $2/" "$HERE/tools/spin.json" >"$d/tool.json"
	echo "$d"
}
run tg create "$(mk spin 4000)"
expect_out '^spin v1: active' "spin created"
run tg create "$(mk quick 1000)"
expect_out '^quick v1: active' "quick created"
printf '{"max_concurrent_runs": 1}\n' >"$HOME_DIR/config.json"

held() { ! flock -n "$TOOLGATE_RUN_DIR/run-slot.0" true 2>/dev/null; }
wait_held() {
	n=0
	while ! held; do
		n=$((n + 1))
		[ $n -lt 100 ] || { echo "FAIL: the first call never took the run slot"; exit 1; }
		sleep 0.05
	done
}

# 1. the second call waits 1 s (its timeout) and is refused
tg call spin '{"spin":true}' >"$WORK/first.out" 2>"$WORK/first.err" &
first=$!
wait_held
t0=$(date +%s%N)
run tg call quick '{}'
t1=$(date +%s%N)
expect_rc 1 "the second call is refused"
expect_err "^toolgate: call: max_concurrent_runs: all 1 run slots of the host \\($TOOLGATE_RUN_DIR\\) stayed busy for 1000 ms: nothing was run; try again later\$" "the exact refusal"
checks=$((checks + 1))
[ $(((t1 - t0) / 1000000)) -ge 900 ] || fail "refused after $(((t1 - t0) / 1000000)) ms, not after waiting 1000 ms"
wait "$first"
checks=$((checks + 1))
grep -q 'timeout after 4000 ms' "$WORK/first.err" || fail "the first call did not run to its timeout: $(cat "$WORK/first.err")"
run "$SQLX" "$HOME_DIR/registry.db" "SELECT finished, ok, error FROM calls WHERE tool = 'quick'"
expect_out '^1	0	max_concurrent_runs: all 1 run slots' "the refusal is the call's logged outcome"

# 2. a second call with a longer timeout waits for the slot, then runs
tg call spin '{"spin":true}' >"$WORK/first.out" 2>"$WORK/first.err" &
first=$!
wait_held
t0=$(date +%s%N)
run tg call spin '{}'
t1=$(date +%s%N)
expect_rc 0 "the waiting call runs once the slot is free"
expect_out '"spun": ?false' "its result"
checks=$((checks + 1))
[ $(((t1 - t0) / 1000000)) -ge 1500 ] || fail "the second call did not wait: $(((t1 - t0) / 1000000)) ms"
wait "$first"

# 3. the cap off: no wait while the slot is held
printf '{"max_concurrent_runs": 0}\n' >"$HOME_DIR/config.json"
flock "$TOOLGATE_RUN_DIR/run-slot.0" sleep 3 &
holder=$!
wait_held
run tg call quick '{}'
expect_rc 0 "no cap: runs without a slot"
kill "$holder" 2>/dev/null
wait
finish run_slots
