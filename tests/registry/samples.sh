#!/bin/sh
# tests/registry/samples.sh TOOLGATE SQLEXEC: recorded calls (docs/REGISTRY.md,
# "A new version earns its place"). Real calls are sampled, the tests of a
# create never; 65 calls keep the last 64; record_calls.tool_kb bounds the
# bytes; 0 turns recording off; a workspace:* tool is recorded only with
# record_workspace_calls; purge deletes them and is audited; the samples are
# in registry.db only, never in the store that push sends.
. "$(dirname "$0")/lib.sh"

count() { # NAME: the number of samples of NAME
	tg samples "$1" --json | grep -c '"args"'
}

d=$(tool_dir word_count)
run tg create "$d"
expect_rc 0 "create word_count"
run tg samples word_count
expect_rc 0 "samples of a tool with no real call yet"
expect_out '^word_count: 0 recorded calls \(keeps the last 64\)$' "the tests of a create are not samples"

i=1
while [ $i -le 65 ]; do
	tg call word_count "{\"text\":\"call $i marker$i\"}" >/dev/null || fail "call $i"
	i=$((i + 1))
done
checks=$((checks + 1))
[ "$(count word_count)" -eq 64 ] || fail "65 calls keep 64 samples, got $(count word_count)"
run tg samples word_count --json
expect_out '"text": "call 65 marker65"' "the newest call is kept"
checks=$((checks + 1))
grep -q '"call 1 marker1"' "$OUT" && fail "the oldest call was not dropped"
expect_out '"result": \{' "a sample holds the result"
# a failing call is a sample too, with its error
run tg call word_count '{"text":"fail"}'
expect_rc 1 "a call that fails"
run tg samples word_count --json
expect_out '"ok": false' "the failure is sampled"
expect_out '"error": ' "with its error"

# never in the store (push sends the store only)
checks=$((checks + 1))
if command -v git >/dev/null 2>&1; then
	git --git-dir="$HOME_DIR/store.git" log --all -p 2>/dev/null | grep -q marker65 &&
		fail "a sample reached the store"
fi

# purge: every sample of the tool, audited
run tg samples purge word_count
expect_rc 0 "purge"
expect_out '^deleted 64 recorded calls of word_count$' "purge says how many"
checks=$((checks + 1))
[ "$(count word_count)" -eq 0 ] || fail "purged samples remain"
run tg log --event samples_purged --json
expect_out '"deleted": 64' "purge is audited with its count"

# the byte cap: 1 KiB per tool keeps only the newest that fit
echo '{"record_calls": {"calls": 64, "tool_kb": 1}}' >"$HOME_DIR/config.json"
pad=$(printf '%0300d' 0)
for i in 1 2 3 4 5; do
	tg call word_count "{\"text\":\"$pad $i\"}" >/dev/null || fail "big call $i"
done
checks=$((checks + 1))
[ "$(count word_count)" -eq 3 ] || fail "1 KiB keeps 3 samples of ~320 bytes, got $(count word_count)"
run tg samples word_count --json
expect_out "$pad 5" "the newest big call is kept"

# off: record_calls 0 (and false)
for off in 0 false; do
	tg samples purge word_count >/dev/null
	echo "{\"record_calls\": $off}" >"$HOME_DIR/config.json"
	tg call word_count '{"text":"not recorded"}' >/dev/null || fail "call with recording off"
	checks=$((checks + 1))
	[ "$(count word_count)" -eq 0 ] || fail "record_calls $off still recorded a call"
done
echo '{"record_calls": "yes"}' >"$HOME_DIR/config.json"
run tg samples word_count
expect_rc 2 "a bad record_calls"
expect_err 'record_calls: must be an integer, a boolean or an object' "the key is named"

# a workspace tool: recorded only with record_workspace_calls
mkdir -p "$WORK/ws"
nd=$WORK/src/note_writer
mkdir -p "$nd"
cp "$HERE/tools/note_writer.c" "$nd/"
cp "$HERE/tools/note_writer.json" "$nd/tool.json"
echo "{\"workspace\": \"$WORK/ws\"}" >"$HOME_DIR/config.json"
run tg create "$nd"
run tg approve note_writer@1
expect_rc 0 "approve note_writer"
run tg call note_writer '{"dry": true}'
expect_rc 0 "call note_writer"
checks=$((checks + 1))
[ "$(count note_writer)" -eq 0 ] || fail "a workspace tool was recorded by default"
echo "{\"workspace\": \"$WORK/ws\", \"record_workspace_calls\": true}" >"$HOME_DIR/config.json"
run tg call note_writer '{"dry": true}'
expect_rc 0 "call note_writer again"
checks=$((checks + 1))
[ "$(count note_writer)" -eq 1 ] || fail "record_workspace_calls: the call was not recorded"

# purge of every tool
run tg samples purge
expect_out '^deleted 1 recorded call of every tool$' "purge of all tools"
finish samples
