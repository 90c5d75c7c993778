#!/bin/sh
# tests/registry/format_assert.sh TOOLGATE SQLEXEC: config.json
# "schema_assert_format" (docs/CONFIG.md, docs/SCHEMA.md "format"). Off (the
# default), `format` is an annotation: a call with a bad email reaches the
# tool. On, the same call is refused before the tool runs with the exact
# message; a submission's schema with a format name toolgate cannot assert
# is refused at create, and a test whose arguments break a format too; a
# version created while the key was off with such a name still runs. The
# property tests of a tool with a format field generate valid values of it.
. "$(dirname "$0")/lib.sh"

mk() { # NAME FORMAT TEST_VALUE: a tool that echoes "v" (a string of FORMAT)
	d=$WORK/src/$1
	rm -rf "$d"
	mkdir -p "$d"
	cat >"$d/tool.c" <<'C'
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	tg_out_object_begin();
	tg_out_key_str("v", tg_arg_str(a, "v", ""));
	tg_out_object_end();
	tg_out_end();
	return 0;
}
C
	cat >"$d/tool.json" <<J
{"name": "$1", "description": "Echo v",
 "input_schema": {"type": "object", "properties": {"v": {"type": "string", "format": "$2"}},
                  "required": ["v"], "additionalProperties": false},
 "source": "tool.c",
 "tests": [{"name": "one", "args": {"v": "$3"}, "expect": {"v": "$3"}}]}
J
	echo "$d"
}

run tg init
printf '{"property_tests": 4}\n' >"$HOME_DIR/config.json"
run tg create "$(mk mail email a@example.com)"
expect_rc 0 "create with format email, key off"
run tg create "$(mk paint color red)"
expect_rc 0 "an unknown format name is an annotation while the key is off"
# off: an annotation, the tool runs
run tg call mail '{"v": "not an email"}'
expect_rc 0 "key off: a bad email reaches the tool"
expect_out '^\{"v":"not an email"\}$' "key off: the tool's answer"

# on
printf '{"property_tests": 4, "schema_assert_format": true}\n' >"$HOME_DIR/config.json"
run tg call mail '{"v": "not an email"}'
expect_rc 2 "key on: a bad email is refused"
expect_err '^toolgate: call mail: invalid arguments: args\.v: must be a valid email \(format\)$' "key on: exact message"
expect_one_line_err "key on: one line"
checks=$((checks + 1))
[ -s "$OUT" ] && fail "key on: the tool ran"
run tg call mail '{"v": "b@example.org"}'
expect_rc 0 "key on: a good email"
expect_out '^\{"v":"b@example.org"\}$' "key on: the tool's answer"
run tg call paint '{"v": "anything"}'
expect_rc 0 "key on: a stored version's unknown format name stays an annotation"
# at create: an unknown format name is refused, and so is a test that breaks a format
run tg create "$(mk paint2 color red)"
expect_rc 2 "key on: an unknown format name at create"
expect_err 'input_schema\.properties\.v\.format: unknown format \(asserted formats: date, time, date-time, email, ipv4, ipv6, uuid, uri\)' "key on: unknown format message"
run tg create "$(mk day date 2023-02-29)"
expect_rc 2 "key on: a test argument that is not a date"
expect_err 'tests\[0\] \(arguments do not match input_schema\): args\.v: must be a valid date \(format\)' "key on: the test's argument"
# the property tests generate valid dates (three, propgen.c), so a field
# with a format gets inputs that pass the validator
run tg create "$(mk day date 2024-02-29)" --json
expect_rc 0 "key on: create with a date field"
tr -d ' \n' <"$OUT" >"$WORK/flat"
checks=$((checks + 1))
grep -q '"property_tests":{"inputs":3,"passed":3,' "$WORK/flat" || fail "key on: 3 date inputs generated and passed"
run tg call day '{"v": "2023-02-29"}'
expect_rc 2 "key on: no 29 February in 2023"
expect_err 'args\.v: must be a valid date \(format\)$' "key on: date message"

# the key's type
printf '{"schema_assert_format": 1}\n' >"$HOME_DIR/config.json"
run tg call mail '{"v": "x"}'
expect_rc 2 "a non-boolean schema_assert_format"
expect_err 'config\.json: schema_assert_format: must be a boolean$' "the key is named"

echo "$checks checks, $fails failures"
[ "$fails" -eq 0 ]
