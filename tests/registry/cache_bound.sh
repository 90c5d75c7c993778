#!/bin/sh
# tests/registry/cache_bound.sh TOOLGATE SQLEXEC: the build cache stays
# bounded and clean. A version that fails its tests keeps no binary. Past
# cache_budget_mb the inactive version's binary is evicted first (and
# rebuilt on demand after a rollback). A build used in the last ten
# minutes, or being marked used (its folder's shared lock held), is never
# evicted, even over the budget: another process's eviction cannot remove
# a build from under a create or call in flight. Build and scratch folders whose
# owner died are removed at the next open, a live build's never (its lock
# is held), an unlocked one only after an hour; a create killed (-9) in
# the middle of its build leaves nothing behind after the next command.
# cache/ removed under a running `serve` is recreated: the next call works.
. "$(dirname "$0")/lib.sh"

builds() { ls "$HOME_DIR/cache" | grep -c '^[0-9a-f]\{64\}$'; }
d=$(tool_dir word_count)
run tg create "$d"
expect_out '^word_count v1: active' "v1"
checks=$((checks + 1))
[ "$(builds)" -eq 1 ] || fail "one cached build ($(builds))"

# 1. a failing version keeps no binary
sed -i 's/"expect": {"words": 2}/"expect": {"words": 3}/' "$d/tool.json"
sed -i 's/printf("{\\"words\\":%d}\\n", words);/printf("{\\"words\\":%d}\\n", words + 0 * 7);/' "$d/word_count.c"
run tg create "$d"
expect_rc 1 "a failing version"
expect_out '^word_count v2: failed' "v2 failed"
checks=$((checks + 1))
[ "$(builds)" -eq 1 ] || fail "the failing version's binary was kept ($(builds) builds)"

# 2. over the budget: the inactive version's binary goes first, once
# nobody used it for ten minutes (last use: the folder's mtime)
age_builds() { for k in $(ls "$HOME_DIR/cache" | grep '^[0-9a-f]\{64\}$'); do touch -d '1 hour ago' "$HOME_DIR/cache/$k"; done; }
printf '{"cache_budget_mb": 1}\n' >"$HOME_DIR/config.json"
sed -i 's/"expect": {"words": 3}/"expect": {"words": 2}/' "$d/tool.json"
run tg create "$d"
expect_out '^word_count v3: active' "v3 (another source)"
checks=$((checks + 1))
[ "$(builds)" -eq 2 ] || fail "v1's build, used a moment ago, was evicted ($(builds) builds)"
run tg gc
expect_out '^cache: [0-9.]+ MiB over its budget of 1\.0 MiB: 2 builds kept, in use or used in the last 10 minutes$' "gc keeps recently used builds"
run tg status
expect_out '^          near or past its budget: builds unused for ten minutes are evicted, least recently used first, and a call of an evicted tool builds it again first \(a second or more\)$' "status says what eviction costs"
age_builds
run tg gc
expect_out '^cache: evicted 1 builds \(0 of active versions\): [0-9.]+ MiB -> [0-9.]+ MiB, budget 1\.0 MiB$' "gc evicts the inactive build"
checks=$((checks + 1))
[ "$(builds)" -eq 1 ] || fail "the inactive v1 was not evicted ($(builds) builds)"
run tg call word_count '{"text":"a b"}'
expect_out '^\{"words":2\}$' "the active version's binary stayed"
checks=$((checks + 1))
[ "$(builds)" -eq 1 ] || fail "calling the active version rebuilt it ($(builds) builds)"
run tg rollback word_count --to 1
run tg call word_count '{"text":"a b c"}'
expect_out '^\{"words":3\}$' "an evicted binary is rebuilt on demand"
run tg verify
expect_rc 0 "verify after eviction"
# a build whose folder is held (a process marking it used) is kept however
# old; once released and old it goes
age_builds
for k in $(ls "$HOME_DIR/cache" | grep '^[0-9a-f]\{64\}$'); do
	flock -s "$HOME_DIR/cache/$k" sleep 2 &
done
sleep 0.3
run tg gc
expect_out '^cache: [0-9.]+ MiB over its budget of 1\.0 MiB: 2 builds kept, in use or used in the last 10 minutes$' "held builds are kept"
checks=$((checks + 1))
[ "$(builds)" -eq 2 ] || fail "a held build was evicted ($(builds) builds)"
wait
run tg gc
expect_out '^cache: evicted 1 builds \(0 of active versions\): [0-9.]+ MiB -> [0-9.]+ MiB, budget 1\.0 MiB$' "released, it goes"
checks=$((checks + 1))
[ "$(builds)" -eq 1 ] || fail "after gc ($(builds) builds)"
run tg call word_count '{"text":"a b c"}'
expect_out '^\{"words":3\}$' "the active v1 still runs"
printf '{}\n' >"$HOME_DIR/config.json"

# 3. work folders: dead owner, live owner, no lock (new and old)
c=$HOME_DIR/cache
mkdir "$c/.build-dead01" && echo x >"$c/.build-dead01/tool" && : >"$c/.lock-dead01"
mkdir "$c/.scratch-dead02" && : >"$c/.lock-dead02"
mkdir "$c/.build-live03" && : >"$c/.lock-live03"
mkdir "$c/.build-nolck4" "$c/.build-oldlk5"
touch -d '2 hours ago' "$c/.build-oldlk5"
flock "$c/.lock-live03" sleep 3 &
holder=$!
sleep 0.3
run tg list
expect_rc 0 "an open sweeps"
checks=$((checks + 1))
[ ! -e "$c/.build-dead01" ] && [ ! -e "$c/.lock-dead01" ] || fail "a dead build folder or its lock stayed"
checks=$((checks + 1))
[ ! -e "$c/.scratch-dead02" ] && [ ! -e "$c/.lock-dead02" ] || fail "a dead scratch folder stayed"
checks=$((checks + 1))
[ -d "$c/.build-live03" ] && [ -e "$c/.lock-live03" ] || fail "a live build folder was removed"
checks=$((checks + 1))
[ -d "$c/.build-nolck4" ] || fail "a fresh folder without a lock was removed"
checks=$((checks + 1))
[ ! -e "$c/.build-oldlk5" ] || fail "an hour-old folder without a lock stayed"
wait $holder
run tg list
checks=$((checks + 1))
[ ! -e "$c/.build-live03" ] || fail "the build folder stayed after its owner ended"
rm -rf "$c/.build-nolck4"

# a create killed during its build (a 60 MB static array takes about a second)
b=$WORK/src/big_array
mkdir -p "$b"
cp "$HERE/tools/big_array.c" "$b/"
cp "$HERE/tools/big_array.json" "$b/tool.json"
"$TG" --home "$HOME_DIR" create "$b" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 200 ] && ! ls -a "$c" | grep -q '^\.build-'; do
	sleep 0.02
	i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
run tg list
checks=$((checks + 1))
left=$(ls -a "$c" | grep -E '^\.(build|lock|scratch)-' || true)
[ -z "$left" ] || fail "a killed create left $left"

# 4. cache/ removed under a running serve
fifo=$WORK/in
mkfifo "$fifo"
"$TG" --home "$HOME_DIR" serve <"$fifo" >"$WORK/serve.out" 2>"$WORK/serve.err" &
spid=$!
exec 3>"$fifo"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"word_count","arguments":{"text":"a"}}}' >&3
i=0
while [ $i -lt 100 ] && ! grep -q '"id":2' "$WORK/serve.out"; do sleep 0.05; i=$((i + 1)); done
rm -rf "$HOME_DIR/cache"
printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"word_count","arguments":{"text":"a b c d"}}}' >&3
i=0
while [ $i -lt 200 ] && ! grep -q '"id":3' "$WORK/serve.out"; do sleep 0.05; i=$((i + 1)); done
exec 3>&-
wait $spid
checks=$((checks + 1))
grep -q '"id":3,"result":{"content":\[{"type":"text","text":"{\\"words\\":4}"}\]' "$WORK/serve.out" || { cp "$WORK/serve.out" "$OUT"; cp "$WORK/serve.err" "$ERR"; fail "a call after cache/ was removed under serve"; }
checks=$((checks + 1))
[ -d "$HOME_DIR/cache" ] || fail "cache/ was not recreated"
finish cache_bound
