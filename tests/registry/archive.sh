#!/bin/sh
# tests/registry/archive.sh TOOLGATE SQLEXEC: audit retention. `log
# --archive BEFORE` moves the older entries to audit-archive/audit-F-L.jsonl
# and appends a checkpoint entry; the chain stays whole (verify ok, the next
# entries go on numbering), the archive verifies on its own (a changed byte
# is a problem), an archive moved elsewhere is a note, a second archive
# (covering the first checkpoint) chains to the first, and a deletion
# outside toolgate is still found.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir word_count)
run tg create "$d"
for t in a b c; do run tg call word_count "{\"text\":\"$t\"}"; done
run tg log
expect_out '^ +9 .* call_result +word_count ' "9 entries"
run tg log --archive 6
expect_rc 0 "archive the entries before 6"
expect_out "^archived entries 1\\.\\.5 \\(5\\) to $HOME_DIR/audit-archive/audit-1-5\\.jsonl \\(sha256 [0-9a-f]{64}\\); checkpoint entry 10\$" "the exact archive line"
a1=$HOME_DIR/audit-archive/audit-1-5.jsonl
checks=$((checks + 1))
[ "$(wc -l <"$a1")" -eq 5 ] || fail "five lines in the archive"
checks=$((checks + 1))
[ "$(head -1 "$a1" | grep -c '"seq":1,.*"event":"create_intent".*"prev_hash":"0\{64\}","hash":"[0-9a-f]\{64\}"}$')" -eq 1 ] || fail "the first archived line"
run tg log
expect_out '^ +6 .* call +word_count ' "the log starts at entry 6"
expect_out '^ +10 .* cli +archive +- +\{"from":1,"through":5,"hash":"[0-9a-f]{64}","file":"audit-archive/audit-1-5.jsonl","sha256":"[0-9a-f]{64}","entries":5,"archives":\[' "the checkpoint entry"
checks=$((checks + 1))
grep -q '^ \+1 ' "$OUT" && fail "entry 1 still in the log"
run tg verify
expect_rc 0 "verify after the archive"
expect_out '^note: audit: entries 1\.\.5 are archived \(1 archive file\)$' "verify notes the archive"
run tg call word_count '{"text":"d"}'
run tg log --limit 1
expect_out '^ +12 .* call_result ' "numbering goes on"

# the archive verifies on its own: a changed byte is found
cp "$a1" "$WORK/a1"
sed -i '2s/"actor":"cli"/"actor":"clx"/' "$a1"
run tg verify
expect_rc 1 "verify: a modified archive"
expect_out '^PROBLEM: audit: the archive audit-archive/audit-1-5.jsonl was modified \(its SHA-256 is not the one its checkpoint recorded\)$' "the modified archive is named"
cp "$WORK/a1" "$a1"
mv "$a1" "$WORK/a1"
run tg verify
expect_rc 0 "verify: an archive moved elsewhere"
expect_out '^note: audit: entries 1\.\.5 were archived to audit-archive/audit-1-5.jsonl, which is not here \(moved elsewhere\?\): not checked$' "noted, not a problem"
mv "$WORK/a1" "$a1"

# a second archive, by date, takes the first checkpoint along
tomorrow=$(date -u -d tomorrow +%Y-%m-%d)
run tg log --archive "$tomorrow"
expect_out '^archived entries 6\.\.12 \(7\) to .*/audit-6-12\.jsonl' "the second archive"
run tg verify
expect_rc 0 "verify after two archives"
expect_out '^note: audit: entries 1\.\.12 are archived \(2 archive files\)$' "two archive files"
run tg call word_count '{"text":"e f"}'
expect_out '^\{"words":2\}$' "calls go on"
run tg verify
expect_rc 0 "verify after more entries"

# bad BEFORE, nothing that old
run tg log --archive yesterday
expect_rc 2 "a bad BEFORE"
expect_err '^toolgate: log: BEFORE: an entry number or a date YYYY-MM-DD \(UTC\)$' "the exact message"
run tg log --archive 1
expect_rc 2 "nothing before entry 1"
expect_err '^toolgate: log: no audit entries before 1$' "nothing to archive"
run tg log --archive 5 --limit 3
expect_rc 2 "--archive goes alone"

# a deletion outside toolgate is still found
run "$SQLX" "$HOME_DIR/registry.db" "DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE seq = 14"
run tg verify
expect_rc 1 "verify: a deleted entry after the archive"
expect_out '^PROBLEM: audit: entries 14\.\.14 are missing \(deleted\)$' "the gap is named"
finish archive
