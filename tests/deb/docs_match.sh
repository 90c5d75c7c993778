#!/bin/sh
# tests/deb/docs_match.sh TOOLGATE SRC_DIR: the man page (man/toolgate.1) and
# the bash completion (packaging/bash-completion/toolgate) cover every
# command that `toolgate --help` lists and every --flag of each command's
# usage line; debian/changelog's version is `toolgate --version`'s. Runs on
# the build tree's binary, no root needed.
set -u
tg=$1
src=$2
man=$src/man/toolgate.1
comp=$src/packaging/bash-completion/toolgate
fails=0
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# the completion must parse (a bad case pattern breaks every completion)
if command -v bash >/dev/null 2>&1; then
	bash -n "$comp" 2>/dev/null || bad "packaging/bash-completion/toolgate: $(bash -n "$comp" 2>&1 | head -1)"
fi

cmds=$("$tg" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || bad "toolgate --help lists too few commands: $cmds"
comp_cmds=$(sed -n '/local commands="/,/"/p' "$comp" | tr -d '"' | sed 's/local commands=//')
for c in $cmds; do
	# a hyphen in a section title is written \- in roff
	sec=$(printf '%s' "$c" | sed 's/-/\\\\-/g')
	grep -qx ".SS $sec" "$man" || bad "man/toolgate.1 has no '.SS $c' section"
	case " $(echo $comp_cmds) " in *" $c "*) ;; *) bad "the completion does not offer '$c'" ;; esac
	# every --flag of the usage line, in the man page (roff escapes - as \-)
	# and in the completion
	flags=$("$tg" "$c" --help | sed -n '1s/^usage: //p' | grep -o -- '--[a-z][a-z-]*' | sort -u)
	for f in $flags; do
		esc=$(printf '%s' "$f" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$man" || bad "man/toolgate.1 does not mention $c $f"
		grep -q -- "$f" "$comp" || bad "the completion does not offer $c $f"
	done
done
for c in $comp_cmds; do
	[ "$c" = help ] && continue
	echo "$cmds" | grep -qx "$c" || bad "the completion offers '$c', which toolgate --help does not list"
done
v=$("$tg" --version | sed 's/^toolgate //')
cv=$(sed -n '1s/^toolgate (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ "$v" = "$cv" ] || bad "debian/changelog says $cv, toolgate --version says $v"
grep -q "\"toolgate $v\"" "$man" || bad "man/toolgate.1's .TH does not say toolgate $v"
if [ "$fails" -gt 0 ]; then
	echo "docs_match: $fails problem(s)"
	exit 1
fi
echo "docs_match: $(echo $cmds | wc -w) commands, man page and completion agree with toolgate --help"
