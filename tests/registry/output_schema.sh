#!/bin/sh
# tests/registry/output_schema.sh TOOLGATE SQLEXEC: a manifest's
# output_schema (issue 14) is checked like input_schema (the documented
# subset, any top-level type), every test's expect must match it, every
# test run's result is validated against it (a mismatch fails the test with
# a clear detail), and every call's result too: a result of another shape
# is a tool error (exit 1, "the result does not match output_schema: ...")
# and never reaches the caller. The schema survives a re-index.
. "$(dirname "$0")/lib.sh"

mk() { # NAME OUTPUT_SCHEMA TESTS: a tool that halves "x" (an integer), or
       # prints "n" as a string when asked (x < 0)
	d=$WORK/src/$1
	rm -rf "$d"
	mkdir -p "$d"
	cat >"$d/tool.c" <<'C'
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long x = tg_arg_int(a, "x", 0);
	tg_out_object_begin();
	if (x < 0)
		tg_out_key_str("n", "minus");
	else if (x % 2)
		tg_out_key_num("n", (double)x / 2);
	else
		tg_out_key_int("n", x / 2);
	tg_out_object_end();
	tg_out_end();
	return 0;
}
C
	cat >"$d/tool.json" <<J
{"name": "$1", "description": "Halve x",
 "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
 "output_schema": $2,
 "source": "tool.c",
 "tests": $3,
 "limits": {"timeout_ms": 2000, "memory_mb": 64}}
J
	echo "$d"
}

OS='{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}'

# half breaks its output_schema on odd and negative x by design (the
# calls below check that): no property tests, which would find exactly that
run tg init
printf '{"property_tests": 0}\n' >"$HOME_DIR/config.json"
# accepted: the test's result matches the schema
d=$(mk half "$OS" '[{"name": "four", "args": {"x": 4}, "expect": {"n": 2}}]')
run tg create "$d"
expect_rc 0 "create with an output_schema"
run tg call half '{"x": 10}'
expect_rc 0 "a call whose result matches"
expect_out '^\{"n":5\}$' "the matching result is returned"
# a call whose result does not match: a tool error, the value withheld
run tg call half '{"x": 3}'
expect_rc 1 "a result that does not match output_schema"
expect_err '^toolgate: .*the result does not match output_schema: result\.n: must be an integer' "mismatch message"
checks=$((checks + 1))
grep -q '1.5' "$OUT" && fail "the mismatching value reached stdout"
run tg call half '{"x": -2}'
expect_rc 1 "a string where an integer is published"
expect_err 'result\.n: must be an integer' "string for integer"
# show and list carry the schema
run tg show half --json
expect_rc 0 "show"
expect_out '"output_schema"' "show --json has output_schema"
# show prints the limits a run actually gets (no output_kb given: the default)
run tg show half
expect_out '^applied: +timeout 2000 ms, memory 64 MiB, output 1024 KiB$' "show: limits applied"
run tg list --json
expect_out '"output_schema"' "list --json has output_schema (published as MCP outputSchema)"
# it survives a re-index (the registry rebuilt from the store)
rm -f "$HOME_DIR/registry.db" "$HOME_DIR/registry.db-wal" "$HOME_DIR/registry.db-shm"
run tg list --json
expect_rc 0 "the registry rebuilt from the store"
expect_out '"output_schema"' "the rebuilt registry publishes the schema"
run tg call half '{"x": 3}'
expect_rc 1 "after re-index the schema still applies"
expect_err 'does not match output_schema' "after re-index: message"

# a test run whose result does not match fails the version, naming why
d=$(mk half_bad "$OS" '[{"name": "minus", "args": {"x": -2}, "expect": {"n": 0}}, {"name": "four", "args": {"x": 4}, "expect": {"n": 2}}]')
run tg create "$d" --json
expect_rc 1 "a test result that does not match output_schema"
expect_out 'the result does not match output_schema: result\.n: must be an integer \(got \{\\"n\\":\\"minus\\"\}\)' "test detail names the mismatch"
# history of a tool with no active version says so (not "v0")
run tg history half_bad
expect_rc 0 "history of a tool without an active version"
expect_out '^half_bad \(active: none\)$' "history: active: none"
expect_out '^ +v1 +failed .*output_schema' "history: why v1 is not active"

# a test's expect that contradicts the schema is refused before anything runs
d=$(mk half_expect "$OS" '[{"name": "four", "args": {"x": 4}, "expect": {"n": "two"}}]')
run tg create "$d"
expect_rc 2 "expect not matching output_schema"
expect_err 'tests\[0\] \(expect does not match output_schema\): expect\.n: must be an integer' "expect mismatch message"

# the schema itself: only the documented keywords, and a type is required
d=$(mk half_kw '{"type": "object", "properties": {"n": {"type": "string", "patern": "^a"}}}' '[{"name": "four", "args": {"x": 4}, "expect": {"n": 2}}]')
run tg create "$d"
expect_rc 2 "an unsupported keyword in output_schema"
expect_err 'output_schema\.properties\.n' "the keyword's path"
d=$(mk half_notype '{"properties": {}}' '[{"name": "four", "args": {"x": 4}, "expect": {"n": 2}}]')
run tg create "$d"
expect_rc 2 "output_schema without a type"
expect_err 'output_schema\.type: is required' "type required"

# a scalar output schema: any top-level type may be published
d=$(mk half_int '{"type": "object"}' '[{"name": "four", "args": {"x": 4}, "expect": {"n": 2}}]')
sed -i 's/"output_schema": {"type": "object"}/"output_schema": {"type": "integer"}/' "$d/tool.json"
run tg create "$d"
expect_rc 2 "an integer schema and an object expect"
expect_err 'expect: must be an integer' "top-level type checked against expect"

echo "$checks checks, $fails failures"
[ "$fails" -eq 0 ]
