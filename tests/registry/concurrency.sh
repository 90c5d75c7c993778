#!/bin/sh
# tests/registry/concurrency.sh TOOLGATE SQLEXEC: several processes create,
# roll back and call at once on one home. No command may fail with a
# database-busy or lock error (exit 3), every submission must get its own
# version, and afterwards store, registry and audit chain must agree.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "baseline create"
n=4
i=1
while [ $i -le $n ]; do
	dd=$(tool_dir "wc$i")
	# each submission differs (so no build is shared) and passes
	sed -i "s|^/\* A word counter|/* variant $i: A word counter|" "$dd/word_count.c"
	( "$TG" --home "$HOME_DIR" create "$dd" >"$WORK/c$i.out" 2>"$WORK/c$i.err"; echo $? >"$WORK/c$i.rc" ) &
	( "$TG" --home "$HOME_DIR" rollback word_count --to 1 >"$WORK/r$i.out" 2>"$WORK/r$i.err"; echo $? >"$WORK/r$i.rc" ) &
	( "$TG" --home "$HOME_DIR" call word_count '{"text":"a b"}' >"$WORK/k$i.out" 2>"$WORK/k$i.err"; echo $? >"$WORK/k$i.rc" ) &
	i=$((i + 1))
done
wait
i=1
while [ $i -le $n ]; do
	checks=$((checks + 3))
	[ "$(cat "$WORK/c$i.rc")" = 0 ] || { echo "FAIL: create $i: exit $(cat "$WORK/c$i.rc")"; cat "$WORK/c$i.err"; fails=$((fails + 1)); }
	# a rollback may find v1 already active (exit 2), never a lock error
	r=$(cat "$WORK/r$i.rc")
	[ "$r" = 0 ] || [ "$r" = 2 ] || { echo "FAIL: rollback $i: exit $r"; cat "$WORK/r$i.err"; fails=$((fails + 1)); }
	[ "$(cat "$WORK/k$i.rc")" = 0 ] || { echo "FAIL: call $i: exit $(cat "$WORK/k$i.rc")"; cat "$WORK/k$i.err"; fails=$((fails + 1)); }
	i=$((i + 1))
done
checks=$((checks + 1))
if grep -Eil 'busy|locked' "$WORK"/*.err >/dev/null 2>&1; then
	fails=$((fails + 1))
	echo "FAIL: a lock error surfaced:"; grep -Ei 'busy|locked' "$WORK"/*.err
fi
# two identical submissions at once share one build folder name: both must
# succeed (the loser of the rename uses the winner's build)
s1=$(tool_dir same1)
s2=$(tool_dir same2)
sed -i 's|^/\* A word counter|/* same: A word counter|' "$s1/word_count.c" "$s2/word_count.c"
( "$TG" --home "$HOME_DIR" create "$s1" >"$WORK/s1.out" 2>"$WORK/s1.err"; echo $? >"$WORK/s1.rc" ) &
( "$TG" --home "$HOME_DIR" create "$s2" >"$WORK/s2.out" 2>"$WORK/s2.err"; echo $? >"$WORK/s2.rc" ) &
wait
for k in 1 2; do
	checks=$((checks + 1))
	[ "$(cat "$WORK/s$k.rc")" = 0 ] || { echo "FAIL: identical create $k: exit $(cat "$WORK/s$k.rc")"; cat "$WORK/s$k.err"; fails=$((fails + 1)); }
done
n=$((n + 2))
checks=$((checks + 1))
[ -z "$(ls -A "$HOME_DIR/cache" | grep '^\.build-')" ] || fail "build folders left behind"

run tg history word_count --json
checks=$((checks + 1))
[ "$(grep -c '"version":' "$OUT")" -ge $((n + 1)) ] || fail "every submission got a version"
for v in 1 2 3 4 5 6 7; do
	expect_out "\"version\": $v," "version $v recorded"
done
run tg verify
expect_rc 0 "verify after the concurrent run"
run tg log --json
checks=$((checks + 1))
[ "$(grep -c '"event": "create"' "$OUT")" -eq $((n + 1)) ] || fail "one create entry per submission"
finish concurrency
