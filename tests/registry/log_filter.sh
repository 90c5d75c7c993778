#!/bin/sh
# tests/registry/log_filter.sh TOOLGATE SQLEXEC: `toolgate log` filters
# (issue 14): --tool NAME and --event NAME match exactly, --actor TEXT keeps
# actors containing TEXT, --since takes an entry number or a UTC date, they
# combine with AND (text and --json alike) and --limit keeps the last N of
# what they kept; bad values exit 2.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir word_count)
run tg create "$d"
expect_rc 0 "create word_count"
d2=$(tool_dir word_count2)
sed -i 's/"word_count"/"word_count2"/' "$d2/tool.json"
run tg create "$d2"
expect_rc 0 "create word_count2"
run tg call word_count '{"text": "a b"}'
expect_rc 0 "a cli call"
# one call through an MCP session, so there is a second actor
printf '%s\n' \
 '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
 '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
 '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"word_count","arguments":{"text":"x y z"}}}' \
 | tg serve >"$OUT" 2>"$ERR"
rc=$?
expect_rc 0 "an MCP session"
run tg call word_count2 '{"text": "q"}'
expect_rc 0 "a cli call of word_count2"

count() { grep -c . "$OUT"; }
# every kept line matches; return how many
all_match() { # REGEX WHAT
	checks=$((checks + 1))
	n=$(count)
	m=$(grep -Ec -- "$1" "$OUT")
	[ "$n" -gt 0 ] && [ "$n" -eq "$m" ] || fail "$2: $m of $n lines match /$1/"
}
expect_n() { # N WHAT
	checks=$((checks + 1))
	[ "$(count)" -eq "$1" ] || fail "$2: $(count) lines, want $1"
}

run tg log
expect_rc 0 "the whole log"
total=$(count)

run tg log --tool word_count
expect_rc 0 "--tool"
all_match ' word_count +\{' "--tool keeps only that tool (not word_count2)"
run tg log --event call
all_match '^ +[0-9]+ [0-9-]+ [0-9:]+ UTC [^ ]+ +call +' "--event keeps only that event"
expect_n 3 "three calls in all"
run tg log --event call --tool word_count
expect_n 2 "--event AND --tool"
run tg log --event call --actor mcp
expect_rc 0 "--actor"
expect_n 1 "one call by an MCP session"
all_match ' mcp:[0-9a-f]+ +call +word_count ' "the MCP call"
run tg log --json --event call --actor mcp
expect_rc 0 "--json with filters"
checks=$((checks + 1))
[ "$(grep -c '"seq"' "$OUT")" -eq 1 ] || fail "--json keeps one entry"
expect_out '"actor": "mcp:[0-9a-f]+"' "--json entry is the MCP one"
run tg log --event call --limit 1
expect_n 1 "--limit after the filters"
all_match ' cli +call +word_count2 ' "the last call is word_count2's"
run tg log --since 5
expect_rc 0 "--since SEQ"
expect_n $((total - 4)) "from entry 5 on"
checks=$((checks + 1))
head -1 "$OUT" | grep -Eq '^ +5 ' || fail "--since 5 starts at entry 5"
run tg log --since 2000-01-01 --tool word_count2
expect_rc 0 "--since DATE"
all_match ' word_count2 ' "--since a past date with --tool"
run tg log --since 2999-01-01
expect_rc 0 "--since a future date"
expect_n 0 "nothing from the future"
run tg log --event nosuch
expect_rc 0 "an event that never happened"
expect_n 0 "nothing kept"

run tg log --since yesterday
expect_rc 2 "--since junk"
expect_one_line_err "--since junk"
run tg log --tool
expect_rc 2 "--tool without NAME"
run tg log --archive 3 --tool word_count
expect_rc 2 "--archive with a filter"
run tg log --run 1 --event call
expect_rc 2 "--run with a filter"
finish log_filter
