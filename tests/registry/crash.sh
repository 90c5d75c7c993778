#!/bin/sh
# tests/registry/crash.sh TOOLGATE SQLEXEC: kill -9 a `toolgate create`
# while its tests run. Nothing half-written may be left: no version in the
# store or the registry, verify passes, and the same submission then goes
# through. Then kill -9 a burst of concurrent rollbacks and check again.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "baseline create"

s=$WORK/src/slow
mkdir -p "$s"
printf 'int main(void)\n{\n\tvolatile unsigned long i = 0;\n\tfor (;;)\n\t\ti++;\n}\n' >"$s/slow.c"
cat >"$s/tool.json" <<'EOF'
{"name": "slow", "description": "Slow tests", "input_schema": {"type": "object"},
 "source": "slow.c", "limits": {"timeout_ms": 700},
 "tests": [{"name": "a", "args": {}, "expect": 1}, {"name": "b", "args": {}, "expect": 1},
           {"name": "c", "args": {}, "expect": 1}, {"name": "d", "args": {}, "expect": 1}]}
EOF
"$TG" --home "$HOME_DIR" create "$s" >"$WORK/slow.out" 2>&1 &
pid=$!
# wait until the build is done and the tests run (a build folder was renamed)
i=0
while [ $i -lt 200 ] && [ "$(ls "$HOME_DIR/cache" | grep -vc '^\.')" -lt 2 ]; do
	sleep 0.05
	i=$((i + 1))
done
sleep 0.3
kill -9 $pid
wait $pid 2>/dev/null
checks=$((checks + 1))
if git --git-dir="$HOME_DIR/store.git" for-each-ref | grep -q 'refs/tools/slow'; then
	fail "a killed create left a version in the store"
fi
run tg history slow
expect_rc 2 "a killed create left no tool in the registry"
run tg verify
expect_rc 0 "verify after kill -9 during create"
sed -i 's/"timeout_ms": 700/"timeout_ms": 100/' "$s/tool.json"
run tg create "$s"
expect_rc 1 "the same submission goes through afterwards"
expect_out '^slow v1: failed' "it gets version 1"

# a burst of rollbacks, some killed at random points
run tg create "$d"
sed -i 's/"empty"/"empty again"/' "$d/tool.json"
run tg create "$d"
expect_rc 0 "another version"
k=0
while [ $k -lt 6 ]; do
	"$TG" --home "$HOME_DIR" rollback word_count --to $((k % 2 + 1)) >/dev/null 2>&1 &
	p=$!
	sleep 0.0$((k * 3))
	kill -9 $p 2>/dev/null
	k=$((k + 1))
done
wait
run tg verify
expect_rc 0 "verify after killed rollbacks"
run tg rollback word_count --to 1
run tg call word_count '{"text":"a b"}'
expect_rc 0 "still callable"
finish crash
