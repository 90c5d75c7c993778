#!/bin/sh
# tests/registry/cache_trust.sh TOOLGATE SQLEXEC: nothing in cache/, the
# registry or a commit's trailers is trusted on its own. A binary planted
# in cache/ (printing a marker) is never run: verify names it, and the next
# call rebuilds from the stored source. Flipped registry rows (verdict,
# status, test results) and rewritten commit trailers (content hash,
# status) each make verify fail (exit 1) with a line naming tool@version
# and what disagrees.
. "$(dirname "$0")/lib.sh"

db=$HOME_DIR/registry.db
git_s() { git --git-dir="$HOME_DIR/store.git" "$@"; }
d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create v1"
run tg call word_count '{"text":"a b"}'
expect_rc 0 "first call"
expect_out '^\{"words":2\}$' "first call result"
run tg verify
expect_rc 0 "verify clean"

# the cached build: one folder cache/<key> with tool and tool.o
key=$(ls "$HOME_DIR/cache" | grep -E '^[0-9a-f]{64}$')
[ "$(echo "$key" | wc -l)" -eq 1 ] || fail "one cache folder, got: $key"
cp "$HOME_DIR/cache/$key/tool" "$WORK/good_tool"

# plant a binary that prints a marker (static, so it runs in the sandbox)
cat >"$WORK/planted.c" <<'C'
#include <stdio.h>
int main(void) { puts("{\"words\":2,\"PLANTED_MARKER\":1}"); return 0; }
C
cc -static -O1 -o "$WORK/planted" "$WORK/planted.c" || fail "cannot build the planted binary"
cp "$WORK/planted" "$HOME_DIR/cache/$key/tool"
run tg verify
expect_rc 1 "verify after planting a binary"
expect_out "^PROBLEM: cache: word_count@1: the cached binary does not match the hash recorded when it was built" "verify names the planted binary"
run tg call word_count '{"text":"a b"}'
expect_rc 0 "call after planting"
checks=$((checks + 1))
grep -q PLANTED_MARKER "$OUT" "$ERR" && fail "the planted binary ran"
expect_out '^\{"words":2\}$' "call after planting runs a rebuilt binary"
checks=$((checks + 1))
cmp -s "$WORK/planted" "$HOME_DIR/cache/$key/tool" && fail "the planted binary is still in the cache"
run tg verify
expect_rc 0 "verify after the rebuild"

# a call skips re-hashing only while the file keeps the identity (inode,
# size, mtime, ctime) it had when it last hashed to its record: a byte
# changed in place, with size and mtime put back, is hashed and rebuilt
run tg call word_count '{"text":"a b"}'
expect_rc 0 "call that notes the binary's identity"
touch -r "$HOME_DIR/cache/$key/tool" "$WORK/stamp"
printf 'X' | dd of="$HOME_DIR/cache/$key/tool" bs=1 seek=4096 conv=notrunc 2>/dev/null
touch -r "$WORK/stamp" "$HOME_DIR/cache/$key/tool"
cp "$HOME_DIR/cache/$key/tool" "$WORK/tampered"
run tg call word_count '{"text":"a b"}'
expect_rc 0 "call after a same-size, same-mtime change"
expect_out '^\{"words":2\}$' "the changed binary is rebuilt, not run"
checks=$((checks + 1))
cmp -s "$WORK/tampered" "$HOME_DIR/cache/$key/tool" && fail "the binary changed in place is still in the cache"

# a planted object file, and a cache folder with no record (registry row gone)
printf 'junk' >"$HOME_DIR/cache/$key/tool.o"
run tg verify
expect_rc 1 "verify after planting tool.o"
expect_out "^PROBLEM: cache: word_count@1: the cached object file does not match" "verify names tool.o"
run "$SQLX" "$db" "DELETE FROM meta WHERE key LIKE 'build:%'"
expect_rc 0 "drop the build records"
cp "$WORK/planted" "$HOME_DIR/cache/$key/tool"
run tg verify
expect_rc 0 "verify: an unrecorded build is only a note"
expect_out "^note: cache: word_count@1: the cached build has no record of being built here" "verify notes the unrecorded build"
run tg call word_count '{"text":"a b"}'
expect_rc 0 "call with an unrecorded cached build"
checks=$((checks + 1))
grep -q PLANTED_MARKER "$OUT" "$ERR" && fail "an unrecorded cached binary ran"
expect_out '^\{"words":2\}$' "unrecorded build rebuilt before use"

# registry rows flipped with SQL
run "$SQLX" "$db" "UPDATE versions SET verdict = 'reject' WHERE version = 1"
run tg verify
expect_rc 1 "verify after flipping the verdict"
expect_out "^PROBLEM: registry: word_count@1: verdict reject in the registry disagrees with the commit's Toolgate-Verdict: pass" "verdict flip named"
expect_out "^PROBLEM: registry: word_count@1 is active but did not pass here \(status active, verdict reject\)" "active without a pass named"
run "$SQLX" "$db" "UPDATE versions SET verdict = 'pass' WHERE version = 1"
run "$SQLX" "$db" "UPDATE test_results SET passed = 0 WHERE idx = 0"
run tg verify
expect_rc 1 "verify after failing a test result"
expect_out "^PROBLEM: registry: word_count@1 is active but 1 of its tests did not pass" "failed test named"
run "$SQLX" "$db" "UPDATE test_results SET passed = 1"
run tg verify
expect_rc 0 "verify after restoring the rows"

# v2 fails its tests; then its row is flipped to look like a passing version
sed -i 's/"expect": {"words": 2}/"expect": {"words": 3}/' "$d/tool.json"
run tg create "$d"
expect_rc 1 "create v2 (a test fails)"
run "$SQLX" "$db" "UPDATE versions SET status = 'inactive' WHERE version = 2"
run tg verify
expect_rc 1 "verify after flipping a status"
expect_out "^PROBLEM: registry: word_count@2: status inactive in the registry disagrees with the commit's Toolgate-Status: failed" "status flip named"
run "$SQLX" "$db" "UPDATE versions SET status = 'failed' WHERE version = 2"
run tg verify
expect_rc 0 "verify after restoring the status"

# trailers rewritten with git plumbing (the tip commit, refs moved)
tip=$(git_s rev-parse refs/tools/word_count)
git_s cat-file commit "$tip" >"$WORK/c"
sed 's/^Toolgate-Content-Hash: .*/Toolgate-Content-Hash: 0000000000000000000000000000000000000000000000000000000000000000/' "$WORK/c" >"$WORK/c2"
new=$(git_s hash-object -t commit -w "$WORK/c2")
git_s update-ref refs/tools/word_count "$new" "$tip"
run tg verify
expect_rc 1 "verify after rewriting the content-hash trailer"
expect_out "^PROBLEM: store: word_count@2: tool.c hashes to [0-9a-f]{12} but the commit's Toolgate-Content-Hash says 000000000000" "hash trailer named"
git_s update-ref refs/tools/word_count "$tip" "$new"
run tg verify
expect_rc 0 "verify after restoring the ref"

# the active version's commit says it was rejected
act=$(git_s rev-parse refs/active/word_count)
par=$(git_s rev-parse "$tip^")
[ "$act" = "$par" ] || fail "v1 is the parent of v2"
git_s cat-file commit "$act" | sed 's/^Toolgate-Status: active/Toolgate-Status: rejected/' >"$WORK/a2"
nact=$(git_s hash-object -t commit -w "$WORK/a2")
sed "s/^parent .*/parent $nact/" "$WORK/c" >"$WORK/c3"
ntip=$(git_s hash-object -t commit -w "$WORK/c3")
git_s update-ref refs/tools/word_count "$ntip" "$tip"
git_s update-ref refs/active/word_count "$nact" "$act"
run tg verify
expect_rc 1 "verify after rewriting the active version's status trailer"
expect_out "^PROBLEM: store: word_count@1 is active but its commit says Toolgate-Status: rejected" "status trailer of the active version named"
finish cache_trust
