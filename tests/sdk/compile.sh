#!/bin/sh
# tests/sdk/compile.sh SRC_DIR OUT_DIR: compile the SDK test tools and every
# good example with exactly the flags of a tool build (and the project's
# stricter warnings), dynamically and -static, failing on any warning.
set -u
src=$1
out=$2
mkdir -p "$out"
flags="-std=gnu11 -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wall -Wextra -Werror \
-Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -I$src/sdk"
fail=0
n=0
# the ten-line example of docs/SDK.md (its first C block) must stay true
awk '/^```c$/ { f = 1; next } /^```$/ { if (f) exit } f' "$src/docs/SDK.md" >"$out/doc_example.c"
for f in "$out/doc_example.c" "$src"/tests/sdk/tools/*.c "$src"/examples/*/tool.c; do
	[ -f "$f" ] || continue
	case "$f" in
	*/examples/weather/*) continue ;; # the malicious example: for the analyzer only
	esac
	name=$(echo "$f" | sed "s|^$out/||; s|^$src/||; s|/|_|g; s|\.c$||")
	for mode in dynamic static; do
		extra=""
		[ "$mode" = static ] && extra="-static"
		if ! gcc $flags $extra -o "$out/$name.$mode" "$f" -lm 2>"$out/$name.$mode.log"; then
			echo "FAIL: $f ($mode):"
			cat "$out/$name.$mode.log"
			fail=1
		fi
		n=$((n + 1))
	done
done
[ "$n" -gt 10 ] || { echo "FAIL: only $n binaries compiled"; exit 1; }
out_doc=$(echo '{"text":"  hello   big world "}' | "$out/doc_example.dynamic")
[ "$out_doc" = '{"words":3}' ] || { echo "FAIL: the docs/SDK.md example printed [$out_doc]"; fail=1; }
echo "compiled $n binaries"
exit $fail
