#!/bin/sh
# tests/common/cli_frame.sh: the command frame's contract: exit codes and
# one-line errors for unknown commands and bad global flags, --help for every
# command, init on a fresh home.
set -u
tg="$1"
fail=0
check() { # expected-rc description command...
	want=$1; shift; what=$1; shift
	"$@" >/tmp/tg_cli_out.$$ 2>/tmp/tg_cli_err.$$
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: $what: exit $rc, want $want"; cat /tmp/tg_cli_err.$$; fail=1
	fi
}
check 2 "no command" "$tg"
check 2 "unknown command" "$tg" frobnicate
grep -q "^toolgate: frobnicate: unknown command" /tmp/tg_cli_err.$$ || { echo "FAIL: unknown command message"; fail=1; }
[ "$(wc -l < /tmp/tg_cli_err.$$)" -eq 1 ] || { echo "FAIL: unknown command: not one line"; fail=1; }
check 2 "--home without value" "$tg" --home
check 0 "--help" "$tg" --help
check 0 "--version" "$tg" --version
for c in init check create list show history diff rollback approve deny call log verify sandbox serve; do
	check 0 "$c --help" "$tg" "$c" --help
	grep -q "^usage: toolgate $c" /tmp/tg_cli_out.$$ || { echo "FAIL: $c --help text"; fail=1; }
done
home=$(mktemp -d)/h
check 0 "init" "$tg" --home "$home" init
[ -d "$home/cache" ] || { echo "FAIL: init made no cache/"; fail=1; }
[ "$(stat -c %a "$home")" = 700 ] || { echo "FAIL: home not 0700"; fail=1; }
check 0 "init again" "$tg" --home "$home" init --json
grep -q '"home"' /tmp/tg_cli_out.$$ || { echo "FAIL: init --json"; fail=1; }
check 2 "init extra argument" "$tg" --home "$home" init extra
rm -rf "$(dirname "$home")" /tmp/tg_cli_out.$$ /tmp/tg_cli_err.$$
[ $fail -eq 0 ] && echo "cli_frame: ok"
exit $fail
