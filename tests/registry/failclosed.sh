#!/bin/sh
# tests/registry/failclosed.sh TOOLGATE SQLEXEC: the audit trail fails
# closed. A call whose intent (calls row + "call" audit entry) cannot be
# written does not run its tool (a workspace:write tool's file stays
# unwritten), in the CLI and in `serve`; an outcome that cannot be written
# is an error to the agent, never the tool's result; a create whose
# submission cannot be audited stores nothing; a toolgate process killed
# (-9) between a call's intent and its outcome leaves an UNFINISHED call in
# `log` and a note in `verify`.
. "$(dirname "$0")/lib.sh"

ws=$WORK/ws
mkdir -p "$ws"
chmod 777 "$ws"
run tg init
mkdir -p "$HOME_DIR"
# spin hangs on {"spin":true} by design: no property tests, which would
# find exactly that and fail its create
printf '{"workspace": "%s", "property_tests": 0}\n' "$ws" >"$HOME_DIR/config.json"
mk() { # NAME: a folder with tests/registry/tools/NAME.{c,json}
	d=$WORK/src/$1
	mkdir -p "$d"
	cp "$HERE/tools/$1.c" "$d/"
	cp "$HERE/tools/$1.json" "$d/tool.json"
	echo "$d"
}
run tg create "$(mk note_writer)"
expect_out '^note_writer v1: pending' "note_writer created"
run tg approve note_writer@1
expect_rc 0 "note_writer approved"
run tg call note_writer '{}'
expect_out '^\{"written":true\}$' "a recorded call runs"
checks=$((checks + 1))
[ "$(cat "$ws/note.txt")" = "written" ] || fail "the tool wrote its file"
rm -f "$ws/note.txt"

# 1. the audit table refuses every insert: the tool must not run
run "$SQLX" "$HOME_DIR/registry.db" "CREATE TRIGGER test_fail BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'injected audit failure'); END"
expect_rc 0 "install the failing trigger"
run tg call note_writer '{}'
expect_rc 3 "a call whose intent cannot be written fails"
expect_err '^toolgate: call: note_writer was not run: its call could not be recorded: registry database: append audit entry: injected audit failure$' "the exact refusal"
expect_one_line_err "refusal"
checks=$((checks + 1))
[ ! -e "$ws/note.txt" ] || fail "the tool ran although its call could not be recorded"
run "$SQLX" "$HOME_DIR/registry.db" "SELECT count(*) FROM calls WHERE tool = 'note_writer'"
expect_out '^1$' "no call row for the refused call (its transaction rolled back)"

# the same through serve: a JSON-RPC error, not the tool's result
mcp() { # ARGS-JSON: one tools/call of note_writer in a fresh session
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"note_writer\",\"arguments\":$1}}" |
		"$TG" --home "$HOME_DIR" serve
}
run mcp '{}'
expect_out '^\{"jsonrpc":"2.0","id":2,"error":\{"code":-32603,"message":"note_writer: note_writer was not run: its call could not be recorded: registry database: append audit entry: injected audit failure"\}\}$' "serve answers an error"
checks=$((checks + 1))
[ ! -e "$ws/note.txt" ] || fail "serve ran the tool although its call could not be recorded"

# a create whose submission cannot be audited stores nothing
run tg create "$(mk spin)"
expect_rc 3 "a create that cannot be audited fails"
expect_err '^toolgate: create: spin was not created: its submission could not be recorded: registry database: append audit entry: injected audit failure$' "the exact create refusal"
checks=$((checks + 1))
if git --git-dir="$HOME_DIR/store.git" for-each-ref | grep -q 'refs/tools/spin'; then
	fail "an unaudited create stored a version"
fi

# 2. only the outcome fails: the tool ran, the agent gets an error, never
# the result, and the call stays unfinished
run "$SQLX" "$HOME_DIR/registry.db" "DROP TRIGGER test_fail; CREATE TRIGGER test_fail BEFORE INSERT ON audit WHEN NEW.event = 'call_result' BEGIN SELECT RAISE(ABORT, 'injected outcome failure'); END"
run mcp '{}'
expect_out '^\{"jsonrpc":"2.0","id":2,"error":\{"code":-32603,"message":"note_writer: note_writer ran but its outcome could not be recorded: registry database: append audit entry: injected outcome failure"\}\}$' "serve: an unrecorded outcome is an error"
checks=$((checks + 1))
grep -q '"written":true' "$OUT" && fail "serve returned the result of a call whose outcome was not recorded"
run tg call note_writer '{}'
expect_rc 3 "CLI: an unrecorded outcome is an error"
expect_err '^toolgate: call: note_writer ran but its outcome could not be recorded: registry database: append audit entry: injected outcome failure$' "the exact outcome error"
checks=$((checks + 1))
grep -q 'written' "$OUT" && fail "the CLI printed the result of a call whose outcome was not recorded"
# the session's own mcp_call entry failing is an error too: it is written
# in the outcome's transaction (tg_registry_call_logged), so the whole
# outcome is refused with it and the call stays unfinished
run "$SQLX" "$HOME_DIR/registry.db" "DROP TRIGGER test_fail; CREATE TRIGGER test_fail BEFORE INSERT ON audit WHEN NEW.event = 'mcp_call' BEGIN SELECT RAISE(ABORT, 'injected session audit failure'); END"
unf0=$("$SQLX" "$HOME_DIR/registry.db" "SELECT count(*) FROM calls WHERE finished = 0")
run mcp '{"dry":true}'
expect_out '^\{"jsonrpc":"2.0","id":2,"error":\{"code":-32603,"message":"note_writer: note_writer ran but its outcome could not be recorded: registry database: append audit entry: injected session audit failure"\}\}$' "serve: a failed mcp_call entry is an error"
checks=$((checks + 1))
unf1=$("$SQLX" "$HOME_DIR/registry.db" "SELECT count(*) FROM calls WHERE finished = 0")
[ "$unf1" -eq $((unf0 + 1)) ] || fail "a call whose mcp_call entry failed stays unfinished ($unf0 -> $unf1)"
run "$SQLX" "$HOME_DIR/registry.db" "DROP TRIGGER test_fail"
run tg log
expect_out ' call +note_writer +\{"call":[0-9]+,"version":1\} UNFINISHED \(no outcome recorded: still running, or its process died\)$' "the unrecorded outcomes show as unfinished"

# 3. kill -9 between the intent and the outcome
run tg create "$(mk spin)"
expect_out '^spin v1: active' "spin created"
"$TG" --home "$HOME_DIR" call spin '{"spin":true}' >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 200 ]; do
	n=$("$SQLX" "$HOME_DIR/registry.db" "SELECT count(*) FROM calls WHERE tool = 'spin' AND finished = 0" 2>/dev/null)
	[ "$n" = 1 ] && break
	sleep 0.05
	i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
run tg log --limit 1
expect_out '^ +[0-9]+ .* call +spin +\{"call":[0-9]+,"version":1\} UNFINISHED \(no outcome recorded: still running, or its process died\)$' "log shows the killed call unfinished"
run tg verify
expect_rc 0 "verify: an unfinished call is not damage"
expect_out '^note: call [0-9]+ \(spin v1 by cli at [0-9]+\) is unfinished: it was recorded before its tool ran and no outcome followed \(still running, or its process died\)$' "verify notes the unfinished call"
run tg --json log --limit 1
expect_out '"unfinished": true' "log --json marks it"
# a later call completes normally
run tg call spin '{}'
expect_out '^\{"spun":false\}$' "the next call runs"
run tg log --limit 2
expect_out 'call_result +spin +\{"call":[0-9]+,"version":1,"ok":true,"wall_ms":[0-9]+,"reason":"exited","backend":"native"\}$' "its outcome is recorded"
finish failclosed
