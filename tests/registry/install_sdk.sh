#!/bin/sh
# tests/registry/install_sdk.sh TOOLGATE SQLEXEC BUILD_DIR: the installed
# binary finds its SDK header relative to its own location (issue 14):
# `cmake --install BUILD_DIR --prefix P` (what `make install PREFIX=P` runs,
# here without reconfiguring, so the prefix the build was configured with is
# not P) gives P/bin/toolgate, which creates examples/word_count on a fresh
# home using P/share/toolgate/include. With that header moved away, create
# and check are an environment error (exit 3, naming the missing header),
# the tool's history stays empty and no rejection is recorded anywhere.
. "$(dirname "$0")/lib.sh"
BUILD=$3
SRC=$(cd "$HERE/../.." && pwd)
P=$WORK/prefix

run cmake --install "$BUILD" --prefix "$P"
expect_rc 0 "cmake --install into a temporary prefix"
checks=$((checks + 1))
[ -x "$P/bin/toolgate" ] && [ -f "$P/share/toolgate/include/toolgate/tool.h" ] ||
	fail "the install lacks bin/toolgate or share/toolgate/include/toolgate/tool.h"
T=$P/bin/toolgate
ti() { "$T" --home "$HOME_DIR" "$@"; }

run ti doctor --json
expect_out "\"detail\": \"$P/share/toolgate/include/toolgate/tool.h\"" "doctor names the installed header"
cp -r "$SRC/examples/word_count" "$WORK/wc"
run ti create "$WORK/wc"
expect_rc 0 "the installed binary creates examples/word_count"
expect_out '^word_count v1: active' "word_count is active"
run ti call word_count '{"text": "one two three"}'
expect_rc 0 "call"
expect_out '"words":3' "the result"

# the header moved away: exit 3, nothing recorded
mv "$P/share/toolgate/include" "$P/share/toolgate/include.away"
H2=$WORK/home2
run "$T" --home "$H2" init
expect_rc 0 "init needs no SDK"
run "$T" --home "$H2" create "$WORK/wc"
expect_rc 3 "create without the SDK is an environment error"
expect_err "^toolgate: create: SDK header missing: $P/bin/../share/toolgate/include/toolgate/tool.h" "the error names the missing header"
expect_one_line_err "missing SDK"
run "$T" --home "$H2" history word_count
expect_rc 2 "no history: the tool was never recorded"
run "$T" --home "$H2" log
checks=$((checks + 1))
grep -Eq 'create|reject' "$OUT" && fail "a create or rejection was audited without the SDK"
checks=$((checks + 1))
[ -z "$(git --git-dir="$H2/store.git" for-each-ref)" ] || fail "the store holds a ref"
run "$T" --home "$H2" check "$WORK/wc/tool.c"
expect_rc 3 "check without the SDK"
run "$T" --home "$HOME_DIR" history word_count
expect_rc 0 "an existing home still opens"
run "$T" --home "$HOME_DIR" doctor
expect_out '^fail +sdk +SDK header missing' "doctor fails the sdk item"
finish install_sdk
