#!/bin/sh
# tests/analyzer/cli_check.sh TOOLGATE CORPUS_DIR: the `toolgate check`
# contract: exit 0 pass, 1 reject, 2 bad input (missing or unreadable file,
# not a .c file, bad --format, bad policy), the text line format, --json and
# --format json/sarif documents, and the policy from --policy FILE or from
# <home>/policy.json.
set -u
tg="$1"
corpus="$2"
fail=0
tmp=$(mktemp -d)
out="$tmp/out"
err="$tmp/err"
check() { # expected-rc description command...
	want=$1; shift; what=$1; shift
	"$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: $what: exit $rc, want $want"; cat "$err" "$out"; fail=1
	fi
}
home="$tmp/home"
mkdir -p "$home"
benign="$corpus/benign/b01_word_count.c"
evil="$corpus/evasion/e01_system.c"
getenv_src="$corpus/evasion/e33_getenv.c"

check 0 "benign passes" "$tg" --home "$home" check "$benign"
grep -q "pass" "$out" || { echo "FAIL: no pass line"; fail=1; }
check 1 "system rejected" "$tg" --home "$home" check "$evil"
grep -Eq "^$evil:[0-9]+:[0-9]+: error: \[process\] " "$out" || { echo "FAIL: text format"; cat "$out"; fail=1; }
check 1 "--json" "$tg" --home "$home" --json check "$evil"
grep -q '"verdict": "reject"' "$out" || { echo "FAIL: --json verdict"; cat "$out"; fail=1; }
grep -q '"rule": "process"' "$out" || { echo "FAIL: --json rule"; fail=1; }
grep -v elapsed_ms "$out" > "$tmp/a.json"
check 1 "--format json" "$tg" --home "$home" check "$evil" --format json
grep -v elapsed_ms "$out" | cmp -s - "$tmp/a.json" || { echo "FAIL: --json differs from --format json"; fail=1; }
check 1 "--format sarif" "$tg" --home "$home" check --format=sarif "$evil"
grep -q '"version": "2.1.0"' "$out" || { echo "FAIL: sarif version"; fail=1; }
grep -q '"ruleId": "process"' "$out" || { echo "FAIL: sarif result"; fail=1; }
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0]; assert r["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"]>=1; assert all("help" in x and "security-severity" in x["properties"] for x in r["tool"]["driver"]["rules"])' "$out" || { echo "FAIL: sarif document"; fail=1; }
fi
check 0 "pass --json" "$tg" --home "$home" --json check "$benign"
grep -q '"verdict": "pass"' "$out" || { echo "FAIL: pass verdict"; fail=1; }

# --capability widens file access to /workspace, and only that
cat > "$tmp/ws.c" <<'EOC'
#include <stdio.h>
int main(void) { FILE *f = fopen("/workspace/data.txt", "r"); if (f) fclose(f); return 0; }
EOC
check 1 "/workspace without the capability" "$tg" --home "$home" check "$tmp/ws.c"
grep -q "file_access" "$out" || { echo "FAIL: /workspace finding"; fail=1; }
check 0 "/workspace with workspace:read" "$tg" --home "$home" check --capability workspace:read "$tmp/ws.c"
check 2 "unknown capability" "$tg" --home "$home" check --capability net "$tmp/ws.c"

check 2 "missing file" "$tg" --home "$home" check "$tmp/nope.c"
grep -q "^toolgate: " "$err" || { echo "FAIL: error line"; fail=1; }
[ "$(wc -l < "$err")" -eq 1 ] || { echo "FAIL: error not one line"; fail=1; }
check 2 "not a .c file" "$tg" --home "$home" check "$corpus/../CMakeLists.txt"
check 2 "a folder" "$tg" --home "$home" check "$tmp/"
mkdir "$tmp/dir.c"
check 2 "a folder named .c" "$tg" --home "$home" check "$tmp/dir.c"
mkfifo "$tmp/fifo.c"
check 2 "a FIFO (must not hang)" timeout 10 "$tg" --home "$home" check "$tmp/fifo.c"
check 2 "no file" "$tg" --home "$home" check
check 2 "two files" "$tg" --home "$home" check "$benign" "$evil"
check 2 "bad format" "$tg" --home "$home" check "$benign" --format xml
check 2 "unknown option" "$tg" --home "$home" check "$benign" --frob
check 2 "--policy missing" "$tg" --home "$home" check "$benign" --policy "$tmp/none.json"
printf '{"allow":["getenv"],"bogus":1}' > "$tmp/bad.json"
check 2 "bad policy" "$tg" --home "$home" check "$benign" --policy "$tmp/bad.json"
grep -q "bogus" "$err" || { echo "FAIL: bad policy message"; cat "$err"; fail=1; }
printf '{"allow":["getenv"]}' > "$tmp/good.json"
check 1 "getenv rejected by default" "$tg" --home "$home" check "$getenv_src"
check 0 "getenv allowed by --policy" "$tg" --home "$home" check "$getenv_src" --policy "$tmp/good.json"
cp "$tmp/good.json" "$home/policy.json"
check 0 "getenv allowed by <home>/policy.json" "$tg" --home "$home" check "$getenv_src"
printf '[' > "$home/policy.json"
check 2 "bad <home>/policy.json" "$tg" --home "$home" check "$benign"
rm -f "$home/policy.json"
head -c 2000000 /dev/zero | tr '\0' ' ' > "$tmp/big.c"
check 1 "2 MB source" "$tg" --home "$home" check "$tmp/big.c"
grep -q "\[limits\]" "$out" || { echo "FAIL: big source not limits"; fail=1; }
printf '#include "%s"\nint main(void){return 0;}\n' "$tmp/secret.h" > "$tmp/leak.c"
echo "TOPSECRET_$$ x;" > "$tmp/secret.h"
check 1 "secret include" "$tg" --home "$home" check "$tmp/leak.c"
if grep -q "TOPSECRET" "$out" "$err"; then echo "FAIL: secret leaked"; fail=1; fi
rm -rf "$tmp"
[ $fail -eq 0 ] && echo "analyzer_cli: ok"
exit $fail
