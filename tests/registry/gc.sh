#!/bin/sh
# tests/registry/gc.sh TOOLGATE SQLEXEC: store upkeep. 300 loose objects
# (three versions plus loose blobs written with git) are packed by
# `toolgate gc` into one pack: no loose object left, the loose ref files
# folded into packed-refs, refs and reflogs unchanged (history never rewritten), git fsck clean, verify ok, every
# version still readable. A create past pack_loose_objects packs by itself.
. "$(dirname "$0")/lib.sh"

G="git --git-dir=$HOME_DIR/store.git"
d=$(tool_dir word_count)
run tg create "$d"
sed -i 's/"Count words in a text"/"Count words v2"/' "$d/tool.json"
run tg create "$d"
sed -i 's/"Count words v2"/"Count words v3"/' "$d/tool.json"
run tg create "$d"
expect_out '^word_count v3: active' "three versions"
i=0
while [ "$($G count-objects | sed 's/ objects.*//')" -lt 300 ]; do
	echo "blob $i" | $G hash-object -w --stdin >/dev/null
	i=$((i + 1))
done
loose=$($G count-objects | sed 's/ objects.*//')
checks=$((checks + 1))
[ "$loose" -eq 300 ] || fail "300 loose objects ($loose)"
refs_before=$($G for-each-ref)
reflog_before=$(cat "$HOME_DIR"/store.git/logs/refs/tools/word_count)
run tg status
expect_out '^store +300 loose objects, 0 packs' "status counts them"
run tg gc
expect_rc 0 "gc"
expect_out '^store: packed 300 objects into pack-[0-9a-f]{40}; loose objects 300 -> 0, packs 0 -> 1$' "gc packs everything"
expect_out '^store: packed refs; loose ref files 3 -> 0$' "gc packs the refs (tool, active, local notes)"
checks=$((checks + 1))
[ -z "$(find "$HOME_DIR/store.git/refs" -type f)" ] || fail "loose ref files left: $(find "$HOME_DIR/store.git/refs" -type f)"
checks=$((checks + 1))
grep -q ' refs/tools/word_count$' "$HOME_DIR/store.git/packed-refs" || fail "refs/tools/word_count not in packed-refs"
run $G count-objects -v
expect_out '^count: 0$' "no loose object left"
expect_out '^packs: 1$' "one pack"
expect_out '^in-pack: 300$' "300 objects in it"
checks=$((checks + 1))
[ "$refs_before" = "$($G for-each-ref)" ] || fail "gc changed a ref"
checks=$((checks + 1))
[ "$reflog_before" = "$(cat "$HOME_DIR"/store.git/logs/refs/tools/word_count)" ] || fail "gc changed a reflog"
run $G fsck --no-dangling
expect_rc 0 "git fsck after gc"
run tg verify
expect_rc 0 "verify after gc"
for v in 1 2 3; do
	run tg show word_count@$v --json
	expect_out "\"version\": $v" "v$v readable"
done
run tg diff word_count 1 3
expect_out '^\+.*Count words v3' "diff across packed versions"
run tg call word_count '{"text":"a b c"}'
expect_out '^\{"words":3\}$' "call after gc"
run tg log
expect_out ' gc +- +\{"objects_packed":300,"loose_removed":300,"pack":"pack-[0-9a-f]{40}","cache_evicted":0\}$' "gc is audited"
run tg gc
expect_out '^store: nothing to pack \(0 loose objects, 1 packs\)$' "a second gc has nothing to do"

# automatic packing after a create past the threshold (a new version of
# word_count adds 4 loose objects: its commit, tree and changed blobs)
printf '{"pack_loose_objects": 3}\n' >"$HOME_DIR/config.json"
sed -i 's/"Count words v3"/"Count words v4"/' "$d/tool.json"
run tg create "$d"
expect_out '^word_count v4: active' "v4"
run $G count-objects -v
expect_out '^count: 0$' "the create packed its loose objects"
expect_out '^packs: 1$' "into one pack again"
checks=$((checks + 1))
[ "$($G rev-parse refs/tools/word_count)" = "$($G rev-parse refs/active/word_count)" ] || fail "v4 is not the tip and active"
checks=$((checks + 1))
$G log --format=%b -1 refs/tools/word_count | grep -q '^Toolgate-Version: 4$' || fail "the packed ref did not move to v4"
run tg verify
expect_rc 0 "verify after the automatic pack"
finish gc
