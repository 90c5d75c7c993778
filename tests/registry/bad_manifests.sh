#!/bin/sh
# tests/registry/bad_manifests.sh TOOLGATE SQLEXEC: hostile and broken
# submissions through `toolgate create`: malformed JSON, duplicate keys,
# wrong types, invalid UTF-8, names like ../x and a;drop table, reserved
# names, sources that are absolute, escape the folder (.., symlink), are
# missing, binary, or 10 MB; tests that can never run the tool to completion
# and compare its result (only expect_error, or refused by the schema). Each
# must exit 2 with one "toolgate:" line, and
# leave the store (every ref) and the registry (every table) unchanged.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "baseline create"

snapshot() {
	{
		git --git-dir="$HOME_DIR/store.git" for-each-ref --format='%(refname) %(objectname)'
		for t in tools versions findings test_results approvals events calls audit meta; do
			# meta's store_fingerprint notes the store state the last
			# re-index saw (any open records it): not registry content
			w=; [ "$t" = meta ] && w="WHERE key != 'store_fingerprint'"
			"$SQLX" "$HOME_DIR/registry.db" "SELECT * FROM $t $w ORDER BY 1" || echo "sql failed"
		done
		ls "$HOME_DIR/cache" | grep -v '^\.build'
	} | sha256sum
}
before=$(snapshot)

b=$WORK/bad
mkdir -p "$b"
cp "$HERE/tools/word_count.c" "$b/"
base=$(cat "$HERE/tools/word_count.json")

# bad_case WHAT MANIFEST-TEXT [MESSAGE-REGEX]
bad_case() {
	printf '%s' "$2" >"$b/tool.json"
	run tg create "$b"
	expect_rc 2 "$1"
	expect_one_line_err "$1"
	[ -z "${3:-}" ] || expect_err "$3" "$1: message"
}
sub() { # FROM TO: the base manifest with FROM replaced by TO
	printf '%s' "$base" | sed "s|$1|$2|"
}

bad_case "malformed JSON" '{"name": "word_count",' 'invalid JSON'
bad_case "trailing garbage" "$base x" 'invalid JSON'
bad_case "not an object" '[1, 2]' 'object'
bad_case "duplicate keys" "$(sub '"name": "word_count",' '"name": "word_count", "name": "other",')" 'duplicate'
bad_case "invalid UTF-8" "$(sub 'Count words' "$(printf 'Count \377 words')")" 'invalid JSON'
bad_case "name ../x" "$(sub '"word_count"' '"../x"')" 'name: must match'
bad_case "name a;drop table" "$(sub '"word_count"' '"a;drop table tools"')" 'name: must match'
bad_case "name with NUL escape" "$(sub '"word_count"' '"wc\\u0000x"')" ''
bad_case "name too long" "$(sub '"word_count"' "\"$(printf 'a%.0s' $(seq 1 65))\"")" 'name: must match'
bad_case "reserved name" "$(sub '"word_count"' '"create_tool"')" 'reserved'
bad_case "name wrong type" "$(sub '"name": "word_count"' '"name": 7')" 'name: must be a string'
bad_case "description missing" "$(sub '"description": "Count words in a text",' '')" 'description: is required'
bad_case "schema top type not object" "$(sub '"type": "object"' '"type": "array"')" 'input_schema'
bad_case "schema keyword unknown" "$(sub '"type": "string"' '"type": "string", "patern": "a*"')" 'patern'
bad_case "tests wrong type" "$(sub '"tests": \[' '"tests": {"a": [')" ''
bad_case "test without expect" "$(sub '"expect": {"words": 0}' '"exp": 0')" 'tests\[1\]'
# a version must be tested to be active: some test must run the tool to
# completion and compare its result
only_err='{"name": "word_count", "description": "Count words in a text",
 "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
 "source": "word_count.c", "tests": [{"name": "asked to fail", "args": {"text": "fail"}, "expect_error": true}]}'
bad_case "only expect_error tests" "$only_err" '^toolgate: create: tests: no test runs the tool and compares its result: all 1 are "expect_error" \(0 refused by input_schema before the tool runs\); add a test with "expect"$'
refused='{"name": "word_count", "description": "Count words in a text",
 "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
 "source": "word_count.c", "tests": [{"name": "wrong type", "args": {"text": 3}, "expect_error": true},
 {"name": "missing", "args": {}, "expect_error": true}]}'
bad_case "every test refused by the schema" "$refused" '^toolgate: create: tests: no test runs the tool and compares its result: all 2 are "expect_error" \(2 refused by input_schema before the tool runs\)'
bad_case "an expect test whose args fail the schema" "$(sub '"args": {"text": "a b"}' '"args": {"text": 7}')" 'tests\[0\] \(arguments do not match input_schema\)'
bad_case "limits over the maximum" "$(sub '"timeout_ms": 2000' '"timeout_ms": 99999999')" 'limits.timeout_ms'
bad_case "unknown capability" "$(sub '"capabilities": \[\]' '"capabilities": ["network"]')" 'unknown capability'
bad_case "unknown key" "$(sub '"source"' '"extra": 1, "source"')" 'extra'
bad_case "absolute source" "$(sub '"word_count.c"' '"/etc/passwd"')" 'relative'
bad_case "source escaping with .." "$(sub '"word_count.c"' '"../wc/word_count.c"')" '\.\.'
ln -sf /etc/hostname "$b/link.c"
bad_case "source symlink out of the folder" "$(sub '"word_count.c"' '"link.c"')" 'outside'
bad_case "missing source" "$(sub '"word_count.c"' '"nope.c"')" 'nope.c'
mkdir -p "$b/adir"
bad_case "source is a folder" "$(sub '"word_count.c"' '"adir"')" 'regular file'
head -c 10485760 /dev/zero | tr '\0' 'a' >"$b/big.c"
bad_case "10 MB source" "$(sub '"word_count.c"' '"big.c"')" 'larger than'
printf 'int main(void) { return 0; }\n\377\376\n' >"$b/binary.c"
bad_case "source not UTF-8" "$(sub '"word_count.c"' '"binary.c"')" 'UTF-8'
printf 'int main(void) { return 0; }\n\000\n' >"$b/nul.c"
bad_case "source with NUL" "$(sub '"word_count.c"' '"nul.c"')" 'NUL'
head -c 2000000 /dev/zero | tr '\0' ' ' >"$b/tool.json"
run tg create "$b"
expect_rc 2 "2 MB manifest"
rm -f "$b/tool.json"
run tg create "$b"
expect_rc 2 "folder without tool.json"

after=$(snapshot)
checks=$((checks + 1))
[ "$before" = "$after" ] || fail "store or registry changed by a refused submission"
run tg verify
expect_rc 0 "verify after the refusals"
finish bad_manifests
