#!/bin/sh
# tests/registry/quota.sh TOOLGATE SQLEXEC: the quotas of docs/CONFIG.md.
# With the default config a tool carrying a 60 MB static array passes
# vetting but its build is stopped at max_binary_mb (16 MiB: the compiler's
# RLIMIT_FSIZE in the sandbox) and refused in well under 3 s: exit 1, the
# quota named, nothing cached or stored, a create_refused audit entry; with
# max_binary_mb 1 and a 1 MB array the object fits and the link is stopped. max_rejected_per_tool_hour refuses the next
# submission of a tool after N rejected ones, before any build;
# quota_home_mb refuses a create once store + cache reach it. `status`
# shows use against each quota (text and --json).
. "$(dirname "$0")/lib.sh"

mk() { # NAME: a folder with tests/registry/tools/NAME.{c,json}
	d=$WORK/src/$1
	mkdir -p "$d"
	cp "$HERE/tools/$1.c" "$d/"
	cp "$HERE/tools/$1.json" "$d/tool.json"
	echo "$d"
}
run tg init
run tg status
expect_rc 0 "status on a new home"
expect_out '^home +[0-9.]+ MiB of 1024\.0 MiB \(quota_home_mb\): store [0-9.]+ MiB, cache 0\.0 MiB, registry\.db [0-9.]+ MiB$' "home line with the default quota"
expect_out '^binary +largest cached 0\.0 MiB of 16\.0 MiB \(max_binary_mb\)$' "binary line"
expect_out '^rejected +0 in the last hour of 20 \(max_rejected_per_tool_hour\)$' "rejected line"
expect_out '^cache +0\.0 MiB in 0 builds of 256\.0 MiB \(cache_budget_mb\)$' "cache line"
expect_out '^store +0 loose objects, 0 packs, packed past 1000 \(pack_loose_objects\)$' "store line"

# 1. a 60 MB static array: the build stopped at the limit, refused fast
t0=$(date +%s%N)
run tg create "$(mk big_array)"
ms=$((($(date +%s%N) - t0) / 1000000))
echo "big_array create refused in $ms ms"
expect_rc 1 "the big binary is refused"
expect_err '^toolgate: create: quota exceeded: max_binary_mb: the build'"'"'s output grew past the 16\.0 MiB limit \(the compiler was stopped there\): nothing was cached or stored$' "the refusal names the quota"
expect_one_line_err "binary refusal"
checks=$((checks + 1))
[ "$ms" -lt 3000 ] || fail "the refusal took $ms ms (the whole 60 MB build ran?)"
checks=$((checks + 1))
[ -z "$(ls -A "$HOME_DIR/cache")" ] || fail "the refused build left something in the cache: $(ls -A "$HOME_DIR/cache")"
checks=$((checks + 1))
git --git-dir="$HOME_DIR/store.git" for-each-ref | grep -q big_array && fail "the refused create stored a version"
run tg log --limit 1
expect_out ' create_refused +big_array +\{"reason":"quota exceeded: max_binary_mb: ' "the refusal is audited"
run tg history big_array
expect_rc 2 "no tool registered"

# 1b. the object fits the limit, the binary does not: the link is stopped
printf '{"max_binary_mb": 1}\n' >"$HOME_DIR/config.json"
d1=$(mk big_array)
sed -i 's/60u \* 1000u \* 1000u/1000u * 1000u/' "$d1/big_array.c"
run tg create "$d1"
expect_rc 1 "a 1 MB array under max_binary_mb 1 is refused"
expect_err '^toolgate: create: quota exceeded: max_binary_mb: the build'"'"'s output grew past the 1\.0 MiB limit \(the compiler was stopped there\): nothing was cached or stored$' "the link stopped at the limit"
checks=$((checks + 1))
[ -z "$(ls -A "$HOME_DIR/cache")" ] || fail "the stopped link left something in the cache"
printf '{}\n' >"$HOME_DIR/config.json"

# 2. rejected submissions per tool per hour
printf '{"max_rejected_per_tool_hour": 2}\n' >"$HOME_DIR/config.json"
d=$(tool_dir word_count)
sed -i 's/^int main(void)$/int evil(void) { return system("id"); }\nint main(void)/' "$d/word_count.c"
run tg create "$d"
expect_out '^word_count v1: rejected' "first rejection"
run tg create "$d"
expect_out '^word_count v2: rejected' "second rejection"
run tg status
expect_out '^rejected +2 in the last hour for word_count of 2 \(max_rejected_per_tool_hour\)$' "status counts them"
run tg create "$d"
expect_rc 1 "the third is refused"
expect_err '^toolgate: create: quota exceeded: max_rejected_per_tool_hour: 2 versions of word_count were rejected or failed in the last hour \(at most 2\): nothing was built or stored; try again later$' "the exact refusal"
run tg history word_count
checks=$((checks + 1))
grep -q ' v3 ' "$OUT" && fail "a refused submission got a version"
d2=$(tool_dir wc2)
sed -i 's/"word_count"/"other_tool"/' "$d2/tool.json"
run tg create "$d2"
expect_out '^other_tool v1: active' "another tool is not affected"

# 3. the home quota (1 MiB: two cached builds of ~0.8 MiB each pass it)
# (spin hangs on {"spin":true} by design: no property tests for it)
printf '{"property_tests": 0}\n' >"$HOME_DIR/config.json"
run tg create "$(mk spin)"
expect_out '^spin v1: active' "a second build"
printf '{"quota_home_mb": 1}\n' >"$HOME_DIR/config.json"
run tg status
expect_out '^home +[0-9.]+ MiB of 1\.0 MiB \(quota_home_mb\)' "status shows the lowered quota"
sed -i 's/"Count words in a text"/"Count words, again"/' "$d2/tool.json"
before=$(git --git-dir="$HOME_DIR/store.git" for-each-ref)
run tg create "$d2"
expect_rc 1 "a create past the home quota is refused"
expect_err '^toolgate: create: quota exceeded: quota_home_mb: the home holds [0-9.]+ MiB \(store, cache and registry\.db\) of its 1\.0 MiB: nothing was built or stored$' "the exact home refusal"
checks=$((checks + 1))
[ "$before" = "$(git --git-dir="$HOME_DIR/store.git" for-each-ref)" ] || fail "the refused create changed the store"
# an operator lifts it (0 = unlimited)
printf '{"quota_home_mb": 0, "max_binary_mb": 0, "max_rejected_per_tool_hour": 0}\n' >"$HOME_DIR/config.json"
run tg create "$d2"
expect_out '^other_tool v2: active' "no quota: accepted"
run tg status
expect_out '^home .*\(quota_home_mb: unlimited\)' "unlimited shown"
run tg --json status
expect_out '"quota_bytes": 0' "json: unlimited is 0"
expect_out '"builds": 2' "json: two cached builds"
# 4. registry.db and its WAL count: padded by 4 MiB it alone passes a
# quota that store and cache stay under
printf '{}\n' >"$HOME_DIR/config.json"
run tg --json status
sc=$(( $(sed -n 's/.*"store_bytes": *\([0-9]*\).*/\1/p' "$OUT") + $(sed -n 's/.*"cache_bytes": *\([0-9]*\).*/\1/p' "$OUT") ))
expect_out '"db_bytes": [1-9][0-9]*' "json: registry.db counted"
"$SQLX" "$HOME_DIR/registry.db" "CREATE TABLE pad(x); INSERT INTO pad VALUES(randomblob(4194304))" >/dev/null
q=$((sc / 1048576 + 2))
printf '{"quota_home_mb": %d}\n' "$q" >"$HOME_DIR/config.json"
sed -i 's/"Count words, again"/"Count words, a third time"/' "$d2/tool.json"
run tg create "$d2"
expect_rc 1 "registry.db past the home quota refuses a create"
expect_err "^toolgate: create: quota exceeded: quota_home_mb: the home holds [0-9.]+ MiB \\(store, cache and registry\\.db\\) of its $q\\.0 MiB: nothing was built or stored\$" "the refusal counts registry.db"
run tg status
expect_out '^home .* registry\.db [4-9]\.[0-9] MiB$' "status shows registry.db"
printf '{"quota_home_mb": -1}\n' >"$HOME_DIR/config.json"
run tg status
expect_rc 2 "a bad quota value is refused"
expect_err 'quota_home_mb' "naming the key"
finish quota
