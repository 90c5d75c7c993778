#!/bin/sh
# bench/authoring/run.sh BUILD_DIR|TOOLGATE [TOOLGATE_BEFORE]: the authoring benchmark
# of issue 14. bench/authoring/tools holds 20 everyday tools written the way
# an agent writes them from the create_tool description alone (the SDK for
# the JSON, the standard library for the rest: regex.h, strptime, stdarg.h,
# strings.h, a dispatch table...). Each is submitted once, on a fresh home,
# with `toolgate create`; the first-try acceptance is counted, and for each
# refusal the first finding's rule and hint are printed (is the hint enough
# to fix it in one more try?). With a second binary (e.g. one built from the
# commit before issue 14) both are measured on the same sources.
# Not a test: it prints figures.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)

measure() { # TOOLGATE LABEL
	bin=$1
	work=$(mktemp -d /tmp/tg_authoring.XXXXXX)
	ok=0
	n=0
	for d in "$HERE"/tools/*/; do
		name=$(basename "$d")
		n=$((n + 1))
		if "$bin" --home "$work/home" create "$d" --json >"$work/out" 2>"$work/err"; then
			ok=$((ok + 1))
		else
			why=$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print(open(sys.argv[2]).read().strip()[:200]); sys.exit()
fs = [f for f in d.get("findings", []) if f.get("severity") == "error"]
if fs:
    f = fs[0]
    print("%s (%s) %s | hint: %s" % (f["rule"], f.get("symbol") or "", f["message"][:80], f.get("hint", "-")))
else:
    print(d.get("reason", "?")[:200])
' "$work/out" "$work/err")
			echo "  $2: $name refused: $why"
		fi
	done
	echo "$2: $ok of $n accepted on the first try"
	rm -rf "$work"
}

bin=$1
[ -d "$bin" ] && bin=$bin/cli/toolgate
measure "$bin" after
if [ $# -ge 2 ]; then
	measure "$2" before
fi
