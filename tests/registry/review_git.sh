#!/bin/sh
# tests/registry/review_git.sh TOOLGATE SQLEXEC: issue 14's operator review
# with plain git.
# 1. Numbers as the agent wrote them: a manifest's 0.77 is stored, shown and
#    diffed as 0.77. A version stored the old way (jansson's
#    0.77000000000000002, written here with plain git exactly as the old
#    binary wrote it) still verifies clean, shows and diffs as 0.77, and its
#    approval (whose hash re-canonicalises the stored manifest) stands.
# 2. Approvals, denials, activations, rollbacks and removals are lines in
#    the version commit's note under refs/notes/toolgate-review (appended,
#    the notes ref's history keeps every state) and the actor is in the
#    reflog of refs/active/<tool>; a denial's reason with control bytes
#    stays one clean line; a note forged with git approves nothing.
. "$(dirname "$0")/lib.sh"

G() { git --git-dir="$HOME_DIR/store.git" "$@"; }
note_of() { G notes --ref=toolgate-review show "$1" 2>/dev/null; }
export GIT_AUTHOR_NAME=someone GIT_AUTHOR_EMAIL=someone@example.org
export GIT_COMMITTER_NAME=someone GIT_COMMITTER_EMAIL=someone@example.org
TS='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
H='[0-9a-f]{64}'

mkdir -p "$WORK/ws"
d=$(tool_dir word_count)
sed -i 's/"properties": {"text": {"type": "string"}}/"properties": {"text": {"type": "string"}, "ratio": {"type": "number", "maximum": 0.77}}/' "$d/tool.json"
grep -q '"maximum": 0.77}' "$d/tool.json" || { echo "fixture edit failed"; exit 1; }
run tg init
printf '{"workspace": "%s"}\n' "$WORK/ws" >"$HOME_DIR/config.json"

# ---- v1: 0.77 stays 0.77 ----------------------------------------------
run tg create "$d"
expect_rc 0 "create v1"
c1=$(G rev-parse refs/tools/word_count)
run G show "$c1:tool.json"
expect_out '^        "maximum": 0.77$' "the stored manifest holds 0.77"
run tg show word_count
expect_out '"maximum":0\.77\}' "show prints 0.77"
run tg show word_count --json
expect_out '"maximum": 0\.77$' "show --json prints 0.77"
checks=$((checks + 1))
grep -q '0\.7700' "$OUT" && fail "show --json spells 0.77 long"
run note_of "$c1"
expect_out "^activated by cli at $TS \\(create\\), no version was active: capabilities \\[\\], content hash $H\$" \
	"the activation is in v1's review note"
run G reflog show refs/active/word_count
expect_out 'toolgate activate: word_count v1 by cli$' "the reflog names the actor"

# ---- v2: stored the old way, with plain git ----------------------------
G show "$c1:tool.json" | sed 's/"maximum": 0.77$/"maximum": 0.77000000000000002/; s/"capabilities": \[\]/"capabilities": [\n    "workspace:read"\n  ]/' >"$WORK/old.json"
grep -q '0.77000000000000002' "$WORK/old.json" && grep -q 'workspace:read' "$WORK/old.json" ||
	{ echo "old-form fixture failed"; exit 1; }
blob=$(G hash-object -w --stdin <"$WORK/old.json")
tree=$(G ls-tree "$c1" | sed "s/[0-9a-f]\{40\}\ttool.json\$/$blob\ttool.json/" | G mktree)
G log -1 --format=%B "$c1" | sed 's/^word_count: active$/word_count: pending/; s/^Toolgate-Version: 1$/Toolgate-Version: 2/; s/^Toolgate-Status: active$/Toolgate-Status: pending/' >"$WORK/msg"
c2=$(G commit-tree "$tree" -p "$c1" -F "$WORK/msg")
G update-ref refs/tools/word_count "$c2" "$c1"
run tg list --pending
expect_out '^word_count +v2 +\[workspace:read\]' "the old-form v2 is indexed, pending"
run tg show word_count@2
expect_rc 0 "show v2"
expect_out '"maximum":0\.77\}' "show of the old-form version prints 0.77"
checks=$((checks + 1))
grep -q '0\.7700' "$OUT" && fail "show spells the old-form 0.77 long"
run tg diff word_count 1 2
expect_rc 0 "diff 1 2"
expect_out '^\+    "workspace:read"$' "diff shows the capability change"
checks=$((checks + 1))
grep -Eq '0\.7700|^[-+].*maximum' "$OUT" && fail "diff shows the unchanged 0.77 as a change"
run tg approve word_count@2 --json
expect_rc 0 "approve the old-form v2"
# the approval hash re-canonicalises the stored manifest with jansson's own
# spelling of reals (0.77000000000000002), as before reals were respelled,
# so approvals recorded by an older toolgate keep matching
G show "$c2:tool.json" >"$WORK/m2.json"
G show "$c2:tool.c" >"$WORK/s2.c"
checks=$((checks + 1))
python3 - "$OUT" "$WORK/m2.json" "$WORK/s2.c" <<'PY' || fail "the approval hash is not over jansson's canonical form with the long spelling"
import hashlib, json, sys
def canon(v):
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + canon(v[k]) for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, float):
        t = "%.17g" % v
        return t if any(c in t for c in ".e") else t + ".0"
    return json.dumps(v)
got = json.load(open(sys.argv[1]))["approval_hash"]
m = canon(json.load(open(sys.argv[2])))
assert "0.77000000000000002" in m, m
src = open(sys.argv[3], "rb").read()
want = hashlib.sha256(b"toolgate-approval-v1\n%d\n" % len(m) + m.encode() + src).hexdigest()
assert got == want, (got, want)
PY
run tg verify
expect_rc 0 "verify is clean with a manifest stored in the old spelling"
run note_of "$c2"
expect_out "^approved by cli at $TS, approval hash $H: capabilities \\[\"workspace:read\"\\], content hash $H\$" \
	"the approval is in v2's review note"
expect_out "^activated by cli at $TS \\(approve\\), replacing v1: capabilities" "and its activation"

# ---- rollback: the approval (hash over the stored manifest) stands ------
run tg rollback word_count --to 1
expect_rc 0 "rollback to v1"
run tg rollback word_count --to 2
expect_rc 0 "rollback to the approved old-form v2 (its approval hash still matches)"
run note_of "$c1"
expect_out "^rolled back to v1 by cli at $TS, from v2: capabilities \\[\\], content hash $H\$" \
	"the rollback is in v1's note"
run note_of "$c2"
expect_out "^rolled back to v2 by cli at $TS, from v1: " "the second rollback is in v2's note"
run G reflog show refs/active/word_count
expect_out 'toolgate rollback: word_count v1 by cli$' "the reflog has the rollback"

# ---- deny: the reason is one clean line ---------------------------------
sed -i 's/"capabilities": \[\]/"capabilities": ["workspace:read"]/' "$d/tool.json"
printf '/* v3 */\n' >>"$d/word_count.c"
run tg create "$d"
expect_rc 0 "create v3 (pending)"
c3=$(G rev-parse refs/tools/word_count)
reason=$(printf 'looks wrong\033[31m red\nsecond line')
run tg deny word_count@3 --reason "$reason"
expect_rc 0 "deny v3"
run note_of "$c3"
expect_out "^denied by cli at $TS, reason \"looks wrong\\?\\[31m red\\?second line\": capabilities \\[\"workspace:read\"\\], content hash $H\$" \
	"the denial is one clean line in v3's note"
checks=$((checks + 1))
[ "$(wc -l <"$OUT")" -eq 1 ] || fail "v3's note is not one line"

# ---- remove: the ref and its reflog go, the note keeps the record -------
run tg remove word_count
expect_rc 0 "remove"
run note_of "$c2"
expect_out "^removed by cli at $TS, this version was active and none is now: capabilities" \
	"the removal is in v2's note"
checks=$((checks + 1))
lines=$(note_of "$c2" | wc -l)
[ "$lines" -eq 4 ] || fail "v2's note has $lines lines, want 4 (approved, activated, rolled back to, removed)"
# appended, never rewritten: one notes commit per act, each a parent of the next
acts=$(for c in "$c1" "$c2" "$c3"; do note_of "$c"; done | wc -l)
checks=$((checks + 1))
[ "$(G rev-list --count refs/notes/toolgate-review)" -eq "$acts" ] ||
	fail "refs/notes/toolgate-review has $(G rev-list --count refs/notes/toolgate-review) commits for $acts acts"

# ---- a forged note approves nothing ------------------------------------
printf '/* v4 */\n' >>"$d/word_count.c"
run tg create "$d"
expect_rc 0 "create v4 (pending)"
c4=$(G rev-parse refs/tools/word_count)
G notes --ref=toolgate-review add -m "approved by cli at 2026-01-01T00:00:00Z, approval hash $(printf '%064d' 0): capabilities [\"workspace:read\"], content hash $(printf '%064d' 0)" "$c4"
run tg list --pending
expect_out '^word_count +v4 +\[workspace:read\]' "v4 stays pending after a forged 'approved' note"
run tg rollback word_count --to 4
expect_rc 2 "rollback to v4 is refused: the forged note is no approval"
expect_err 'v4 awaits approval of its capabilities' "the refusal says v4 awaits approval"
rm -f "$HOME_DIR/registry.db" "$HOME_DIR/registry.db-wal" "$HOME_DIR/registry.db-shm"
run tg show word_count@4 --json
expect_out '"status": "pending"' "re-indexed from the store, v4 is still pending"
finish review_git
