# tests/registry/lib.sh: helpers shared by the registry's CLI tests (sourced).
# Each test gets TG (the toolgate binary), SQLX (registry_sqlexec) and HERE
# (this folder); run() records the exit status and output of one command,
# expect_rc() / expect_out() / expect_err() check them and count failures.
set -u
TG=$1
SQLX=$2
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/tg_registry_test.XXXXXX)
HOME_DIR=$WORK/home
OUT=$WORK/out
ERR=$WORK/err
fails=0
checks=0
trap 'rm -rf "$WORK"' EXIT

tg() { "$TG" --home "$HOME_DIR" "$@"; }

# run CMD...: run it, keep stdout/stderr/status
run() {
	"$@" >"$OUT" 2>"$ERR"
	rc=$?
}

fail() {
	fails=$((fails + 1))
	echo "FAIL: $*"
	echo "  --- stdout:"; head -c 2000 "$OUT" | sed 's/^/  /'
	echo "  --- stderr:"; head -c 2000 "$ERR" | sed 's/^/  /'
}

expect_rc() { # WANT WHAT
	checks=$((checks + 1))
	[ "$rc" -eq "$1" ] || fail "$2: exit $rc, want $1"
}

expect_out() { # REGEX WHAT
	checks=$((checks + 1))
	grep -Eq -- "$1" "$OUT" || fail "$2: stdout lacks /$1/"
}

expect_err() { # REGEX WHAT
	checks=$((checks + 1))
	grep -Eq -- "$1" "$ERR" || fail "$2: stderr lacks /$1/"
}

expect_one_line_err() { # WHAT
	checks=$((checks + 1))
	[ "$(wc -l <"$ERR")" -eq 1 ] && grep -Eq '^toolgate: ' "$ERR" || fail "$1: stderr is not one 'toolgate: ' line"
}

# named_tool NAME: tool_dir NAME with the tool renamed NAME, its source tool.c
named_tool() {
	d=$(tool_dir "$1")
	sed -i "s/\"word_count\"/\"$1\"/; s/\"source\": \"word_count.c\"/\"source\": \"tool.c\"/" "$d/tool.json"
	mv "$d/word_count.c" "$d/tool.c"
	echo "$d"
}

# tool_dir NAME: a fresh folder holding a copy of the word_count tool
tool_dir() {
	d=$WORK/src/$1
	rm -rf "$d"
	mkdir -p "$d"
	cp "$HERE/tools/word_count.c" "$HERE/tools/word_count.json" "$d/"
	mv "$d/word_count.json" "$d/tool.json"
	echo "$d"
}

finish() { # NAME
	if [ "$fails" -eq 0 ]; then
		echo "$1: ok ($checks checks)"
		exit 0
	fi
	echo "$1: $fails of $checks checks failed"
	exit 1
}
