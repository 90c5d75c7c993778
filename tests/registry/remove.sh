#!/bin/sh
# tests/registry/remove.sh TOOLGATE SQLEXEC: `toolgate remove NAME` (issue
# 14) disables a tool: no version active (list, call and the store's
# refs/active agree, also after a re-index from the store), every version and
# event kept, the removal audited and shown by history; removing again, an
# unknown tool or bad usage exit 2; rollback --to V brings a version back,
# an approved one too.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir wc)
sed -i 's/"word_count"/"wc"/; s/"source": "word_count.c"/"source": "tool.c"/' "$d/tool.json"
mv "$d/word_count.c" "$d/tool.c"
run tg create "$d"
expect_rc 0 "create wc v1"
sed -i 's/Count words in a text/Count the words of a text/' "$d/tool.json"
run tg create "$d"
expect_rc 0 "create wc v2"

run tg remove wc
expect_rc 0 "remove wc"
expect_out '^wc removed: no version is active \(was v2\); history kept$' "remove says what it did"
run tg list --json
expect_rc 0 "list after remove"
checks=$((checks + 1))
grep -q '"wc"' "$OUT" && fail "a removed tool is still listed"
run tg call wc '{"text": "a b"}'
expect_rc 2 "calling a removed tool"
expect_err '^toolgate: call: .*no active tool named wc' "call names the missing tool"
run tg history wc
expect_rc 0 "history of a removed tool"
expect_out '^wc \(active: none\)$' "history says none active"
expect_out '^  v1 +inactive ' "v1 kept"
expect_out '^  v2 +inactive .*removed \(toolgate remove\): no version active' "v2 says it was removed"
expect_out 'remove +none active \(was v2\) by cli' "the remove event"
run tg log --json
expect_out '"event": "remove"' "the removal is audited"
run tg verify
expect_rc 0 "store (refs/active gone) and registry agree"

run tg remove wc
expect_rc 2 "removing a removed tool"
expect_err '^toolgate: remove: wc has no active version: nothing to remove$' "second remove"
run tg remove nosuch
expect_rc 2 "removing an unknown tool"
expect_one_line_err "unknown tool"
run tg remove
expect_rc 2 "remove without NAME"
run tg remove wc extra
expect_rc 2 "remove with two names"

# the default rollback target needs an active version; --to V works
run tg rollback wc
expect_rc 2 "rollback with nothing active and no --to"
run tg rollback wc --to 1
expect_rc 0 "rollback --to 1 re-activates"
run tg call wc '{"text": "a b c"}'
expect_rc 0 "call after re-activation"
expect_out '"words":3' "the re-activated version runs"

# removed again, then registry.db rebuilt from the store: still none active
run tg remove wc
expect_rc 0 "remove after rollback"
expect_out 'was v1' "it was v1"
rm -f "$HOME_DIR/registry.db" "$HOME_DIR/registry.db-wal" "$HOME_DIR/registry.db-shm"
run tg history wc
expect_rc 0 "history after a re-index"
expect_out '^wc \(active: none\)$' "the store holds no active pointer"

# a tool asking for a capability: approved, removed, rolled back to (its
# approval stands); history gives the removal, not the stale pending reason
mkdir -p "$WORK/ws"
printf '{"workspace": "%s"}\n' "$WORK/ws" >"$HOME_DIR/config.json"
w=$WORK/src/ws_tool
mkdir -p "$w"
cp "$HERE/tools/word_count.c" "$w/tool.c"
sed 's/"word_count"/"ws_tool"/; s/"source": "word_count.c"/"source": "tool.c"/; s/"capabilities": \[\]/"capabilities": ["workspace:read"]/' \
	"$HERE/tools/word_count.json" >"$w/tool.json"
run tg create "$w"
expect_out '^ws_tool v1: pending' "ws_tool pending"
run tg approve ws_tool@1
expect_rc 0 "approve"
run tg remove ws_tool
expect_rc 0 "remove an approved tool"
run tg history ws_tool
expect_out '^  v1 +inactive .*removed \(toolgate remove\): no version active$' "history: removed, not 'needs approval'"
run tg rollback ws_tool --to 1
expect_rc 0 "rollback to the approved version"
run tg call ws_tool '{"text": "a"}'
expect_rc 0 "call after rollback"
finish remove
