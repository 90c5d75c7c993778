#!/bin/sh
# tests/badinput/cli.sh TOOLGATE: every command with missing, extra,
# wrong-typed, oversized and malformed arguments, and hostile manifests and
# paths. Each case must exit 2 with exactly one line on stderr of the form
# "toolgate: what: why", print nothing on stdout, and change nothing: the
# snapshot of the home (`--json list`, `--json history` of every tool,
# `--json log`, `git for-each-ref` of the store) is compared before and after
# every case.
set -u
tg=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../reliability/lib.sh"
fix=$here/../reliability/fixtures
work=$(mktemp -d /tmp/tg_badin.XXXXXX)
home=$work/home
trap 'rm -rf "$work"' EXIT
"$tg" --home "$home" init >/dev/null || fail "init"
mkdir -p "$work/ws"
printf '{"workspace": "%s"}\n' "$work/ws" > "$home/config.json"
"$tg" --home "$home" create "$fix/good" >/dev/null || fail "create good"
"$tg" --home "$home" create "$fix/bad_test" >/dev/null; [ $? -eq 1 ] || fail "create bad_test"
"$tg" --home "$home" create "$fix/cap" >/dev/null || fail "create cap (pending)"

snapshot() {
	{
		"$tg" --home "$home" --json list
		for t in rel_tool rel_cap; do "$tg" --home "$home" --json history $t; done
		"$tg" --home "$home" --json log
		git --git-dir="$home/store.git" for-each-ref --format='%(refname) %(objectname)'
	} > "$1" 2>&1 || fail "snapshot"
}
snapshot "$work/snap0"
n=0
# expect_bad LABEL ARGS...: exit 2, one "toolgate: what: why" line, no stdout, no change
expect_bad() {
	label=$1; shift
	n=$(( n + 1 ))
	timeout 60 "$tg" --home "$home" "$@" < /dev/null > "$work/out" 2> "$work/err"
	rc=$?
	[ $rc -eq 2 ] || { cat "$work/err"; fail "$label: exit $rc, want 2"; }
	[ ! -s "$work/out" ] || fail "$label: printed on stdout: $(head -c 200 "$work/out")"
	[ "$(wc -l < "$work/err")" -eq 1 ] || { cat "$work/err"; fail "$label: stderr is not one line"; }
	grep -q -E '^toolgate: [^ ].*: [^ ]' "$work/err" || fail "$label: not 'toolgate: what: why': $(cat "$work/err")"
	snapshot "$work/snap1"
	cmp -s "$work/snap0" "$work/snap1" || { diff "$work/snap0" "$work/snap1" | head -20; fail "$label: the home changed"; }
}
# same with stdin from a file
expect_bad_stdin() {
	label=$1; file=$2; shift 2
	n=$(( n + 1 ))
	timeout 60 "$tg" --home "$home" "$@" < "$file" > "$work/out" 2> "$work/err"
	rc=$?
	[ $rc -eq 2 ] || { cat "$work/err"; fail "$label: exit $rc, want 2"; }
	[ "$(wc -l < "$work/err")" -eq 1 ] || { cat "$work/err"; fail "$label: stderr is not one line"; }
	grep -q -E '^toolgate: [^ ].*: [^ ]' "$work/err" || fail "$label: not 'toolgate: what: why': $(cat "$work/err")"
	snapshot "$work/snap1"
	cmp -s "$work/snap0" "$work/snap1" || fail "$label: the home changed"
}

long=$(head -c 5000 /dev/zero | tr '\0' a)
huge=$(head -c 100000 /dev/zero | tr '\0' b)

# ---- unknown command, every command's arity
expect_bad "unknown command" nosuch
expect_bad "init extra" init extra
expect_bad "check missing" check
expect_bad "check extra" check a.c b.c
expect_bad "create missing" create
expect_bad "create extra" create a b
expect_bad "list extra" list extra
expect_bad "list unknown option" list --bogus
expect_bad "show missing" show
expect_bad "history missing" history
expect_bad "history extra" history rel_tool rel_cap
expect_bad "diff missing" diff
expect_bad "diff one version" diff rel_tool 1
expect_bad "rollback missing" rollback
expect_bad "rollback --to missing" rollback rel_tool --to
expect_bad "approve missing" approve
expect_bad "approve no version" approve rel_cap
expect_bad "call missing" call
expect_bad "log --limit missing" log --limit
expect_bad "verify extra" verify x
expect_bad "sandbox missing" sandbox
expect_bad "sandbox unknown" sandbox nosuch
expect_bad "serve extra" serve x
expect_bad "serve bad budget" serve --max-calls x

# ---- wrong types and malformed values
expect_bad "show bad name" show Bad-Name
expect_bad "show newline name" show "$(printf 'a\nb')"
expect_bad "show invalid utf8 name" show "$(printf '\377\376')"
expect_bad "show version 0" show rel_tool@0
expect_bad "show version word" show rel_tool@x
expect_bad "show version negative" show rel_tool@-1
expect_bad "show version overflow" show rel_tool@4294967297
expect_bad "show version huge" show rel_tool@99999999999999999999999
expect_bad "show empty version" show rel_tool@
expect_bad "show unknown tool" show nosuch
expect_bad "show unknown version" show rel_tool@99
expect_bad "history unknown" history nosuch
expect_bad "diff word" diff rel_tool 1 x
expect_bad "diff overflow" diff rel_tool 1 4294967297
expect_bad "diff unknown version" diff rel_tool 1 99
expect_bad "rollback unknown tool" rollback nosuch
expect_bad "rollback --to 0" rollback rel_tool --to 0
expect_bad "rollback --to overflow" rollback rel_tool --to 99999999999999999999
expect_bad "rollback to failed version" rollback rel_tool --to 2
# rollback to the active version is idempotent (exit 0): tests/registry/papercuts.sh
expect_bad "rollback to missing version" rollback rel_tool --to 99
expect_bad "rollback pending-only tool" rollback rel_cap
expect_bad "approve active" approve rel_tool@1
expect_bad "approve failed" approve rel_tool@2
expect_bad "approve missing version" approve rel_cap@9
expect_bad "approve bad ref" approve "rel_cap@1@1"
expect_bad "call unknown tool" call nosuch
# calling the pending tool is a denial naming its approval (exit 1): tests/registry/papercuts.sh
expect_bad "call array args" call rel_tool '[1]'
expect_bad "call string args" call rel_tool '"x"'
expect_bad "call truncated json" call rel_tool '{'
expect_bad "call trailing garbage" call rel_tool '{} x'
expect_bad "call duplicate key" call rel_tool '{"a":1,"a":2}'
expect_bad "call invalid utf8" call rel_tool "$(printf '{"a":"\377"}')"
expect_bad "call too deep" call rel_tool "$(printf '{"a":%s1%s}' "$(head -c 200 /dev/zero | tr '\0' '[')" "$(head -c 200 /dev/zero | tr '\0' ']')")"
expect_bad "log --limit negative" log --limit -1
expect_bad "log --limit word" log --limit x
expect_bad "log --limit overflow" log --limit 99999999999999999999
expect_bad "check not .c" check "$fix/good/tool.json"
expect_bad "check missing file" check "$work/none.c"

# ---- oversized
expect_bad "show long name" show "$long"
expect_bad "call huge name" call "$huge"
head -c 3000000 /dev/zero | tr '\0' ' ' > "$work/big_args"
expect_bad_stdin "call args over 1 MiB on stdin" "$work/big_args" call rel_tool -
printf '{"text":"%s"}' "$huge$huge$huge$huge$huge$huge$huge$huge$huge$huge$huge" > "$work/args_1m"
expect_bad_stdin "call args 1.1 MB object on stdin" "$work/args_1m" call rel_tool -

# ---- hostile manifests and paths for create
expect_bad "create missing path" create "$work/none"
mkfifo "$work/fifo"
expect_bad "create fifo" create "$work/fifo"
expect_bad "create /dev/zero" create /dev/zero
mkdir -p "$work/m"
cp "$fix/good/tool.c" "$work/m/tool.c"
mk() { # name json
	mkdir -p "$work/m/$1"; cp "$fix/good/tool.c" "$work/m/$1/tool.c"; printf '%s' "$2" > "$work/m/$1/tool.json"
}
base='"description":"d","input_schema":{"type":"object","properties":{}},"tests":[{"name":"t","args":{},"expect":{"v":1}}]'
mk empty ''
mk notjson '{name'
mk array '[]'
mk noname "{$base,\"source\":\"tool.c\"}"
mk badname "{\"name\":\"Bad\",$base,\"source\":\"tool.c\"}"
mk reserved "{\"name\":\"create_tool\",$base,\"source\":\"tool.c\"}"
mk nosource "{\"name\":\"rel_x\",$base}"
mk abssource "{\"name\":\"rel_x\",$base,\"source\":\"/etc/passwd\"}"
mk dotdot "{\"name\":\"rel_x\",$base,\"source\":\"../tool.c\"}"
mk numsource "{\"name\":\"rel_x\",$base,\"source\":5}"
mk dupkey "{\"name\":\"rel_x\",\"name\":\"rel_y\",$base,\"source\":\"tool.c\"}"
mk unknownkey "{\"name\":\"rel_x\",$base,\"source\":\"tool.c\",\"run_as\":\"root\"}"
mk badcap "{\"name\":\"rel_x\",$base,\"source\":\"tool.c\",\"capabilities\":[\"network\"]}"
mk biglimit "{\"name\":\"rel_x\",$base,\"source\":\"tool.c\",\"limits\":{\"timeout_ms\":999999999}}"
mk strlimit "{\"name\":\"rel_x\",$base,\"source\":\"tool.c\",\"limits\":{\"memory_mb\":\"64\"}}"
mk badschema "{\"name\":\"rel_x\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\",\"pattern\":\"x\"},\"tests\":[{\"name\":\"t\",\"args\":{},\"expect\":1}],\"source\":\"tool.c\"}"
mk notests "{\"name\":\"rel_x\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},\"tests\":[],\"source\":\"tool.c\"}"
mk argsmismatch "{\"name\":\"rel_x\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]},\"tests\":[{\"name\":\"t\",\"args\":{},\"expect\":1}],\"source\":\"tool.c\"}"
mk bidi "{\"name\":\"rel_x\",\"description\":\"a\\u202eb\",\"input_schema\":{\"type\":\"object\"},\"tests\":[{\"name\":\"t\",\"args\":{},\"expect\":1}],\"source\":\"tool.c\"}"
mk ctlname "{\"name\":\"rel_x\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},\"tests\":[{\"name\":\"a\\u0007b\",\"args\":{},\"expect\":1}],\"source\":\"tool.c\"}"
for c in empty notjson array noname badname reserved nosource abssource dotdot numsource dupkey \
	 unknownkey badcap biglimit strlimit badschema notests argsmismatch bidi ctlname; do
	expect_bad "create manifest $c" create "$work/m/$c"
done
# source: a symlink out of the folder, a folder, a fifo, too big, NUL, bad UTF-8, control byte
good_manifest() { printf '{"name":"rel_x",%s,"source":"%s"}' "$base" "$2" > "$work/m/$1/tool.json"; }
mkdir -p "$work/m/link" && ln -sf /etc/hostname "$work/m/link/tool.c" && good_manifest link tool.c
mkdir -p "$work/m/srcdir/tool.c" && good_manifest srcdir tool.c
mkdir -p "$work/m/srcfifo" && mkfifo "$work/m/srcfifo/tool.c" && good_manifest srcfifo tool.c
mkdir -p "$work/m/bigsrc" && { cat "$fix/good/tool.c"; head -c 300000 /dev/zero | tr '\0' '\n'; } > "$work/m/bigsrc/tool.c" && good_manifest bigsrc tool.c
mkdir -p "$work/m/nulsrc" && { cat "$fix/good/tool.c"; printf 'int x;\0\n'; } > "$work/m/nulsrc/tool.c" && good_manifest nulsrc tool.c
mkdir -p "$work/m/utf8src" && { cat "$fix/good/tool.c"; printf '/* \377 */\n'; } > "$work/m/utf8src/tool.c" && good_manifest utf8src tool.c
mkdir -p "$work/m/ctlsrc" && { cat "$fix/good/tool.c"; printf '/* \033[2J */\n'; } > "$work/m/ctlsrc/tool.c" && good_manifest ctlsrc tool.c
mkdir -p "$work/m/bigman" && { printf '{"name":"rel_x",%s,"source":"tool.c","description2":"' "$base"; head -c 1100000 /dev/zero | tr '\0' a; printf '"}'; } > "$work/m/bigman/tool.json" && cp "$fix/good/tool.c" "$work/m/bigman/"
for c in link srcdir srcfifo bigsrc nulsrc utf8src ctlsrc bigman; do
	expect_bad "create source $c" create "$work/m/$c"
done

# ---- a home that is not one
n=$(( n + 1 ))
"$tg" --home "$work/nohome" list > "$work/out" 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$work/err")" -eq 1 ] || fail "list on a missing home: exit $rc: $(cat "$work/err")"
[ ! -e "$work/nohome" ] || fail "list created a home"
n=$(( n + 1 ))
"$tg" --home "" list > "$work/out" 2> "$work/err"; rc=$?
[ $rc -eq 2 ] || fail "empty --home: exit $rc"

echo "badinput cli: $n cases, each exit 2 with one error line and no change: ok"
