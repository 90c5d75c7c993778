#!/bin/sh
# tests/registry/diff_order.sh TOOLGATE SQLEXEC: `toolgate diff` (issue 14)
# shows the source first, then the manifest, then the test results, then
# the analysis; the test results carry no timing (wall_ms etc.), so two
# versions whose tests differ only in timing show no tests.json section;
# a test whose outcome changed does show.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir word_count)
run tg create "$d"
expect_rc 0 "create v1"
# v2: the source and the description change; the tests give the same results
sed -i 's/Count words in a text/Count the words of a text/' "$d/tool.json"
printf '/* v2 */\n' >>"$d/word_count.c"
run tg create "$d"
expect_rc 0 "create v2"
# v3: one more test (so tests.json changes for real)
sed -i 's/"tests": \[/"tests": [\n    {"name": "three words", "args": {"text": "a b c"}, "expect": {"words": 3}},/' "$d/tool.json"
run tg create "$d"
expect_rc 0 "create v3"

run tg diff word_count 1 2
expect_rc 0 "diff 1 2"
checks=$((checks + 1))
files=$(grep '^diff --git' "$OUT" | awk '{print $3}' | tr '\n' ' ')
[ "$files" = "a/tool.c a/tool.json " ] || fail "diff 1 2: files in order [$files], want source then manifest only (timing left out of tests.json)"
checks=$((checks + 1))
grep -Eq 'wall_ms|cpu_ms|max_rss_kb' "$OUT" && fail "diff 1 2 shows timing"
expect_out '^\+/\* v2 \*/$' "the source change"
expect_out '^\+  "description": "Count the words of a text",?$' "the manifest change"

run tg diff word_count 2 3
expect_rc 0 "diff 2 3"
checks=$((checks + 1))
files=$(grep '^diff --git' "$OUT" | awk '{print $3}' | tr '\n' ' ')
[ "$files" = "a/tool.json a/tests.json " ] && grep -q '^+    "name": "three words",$' "$OUT" ||
	fail "diff 2 3: files [$files], want the manifest then the test results with the new test"
checks=$((checks + 1))
grep -Eq 'wall_ms|cpu_ms|max_rss_kb' "$OUT" && fail "diff 2 3 shows timing"
run tg diff word_count 1 3
checks=$((checks + 1))
files=$(grep '^diff --git' "$OUT" | awk '{print $3}' | tr '\n' ' ')
[ "$files" = "a/tool.c a/tool.json a/tests.json " ] || fail "diff 1 3: files in order [$files]"
run tg diff word_count 1 9
expect_rc 2 "a version that does not exist"
finish diff_order
