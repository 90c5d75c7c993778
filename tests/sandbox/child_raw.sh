#!/bin/sh
# tests/sandbox/child_raw.sh OBJECTS: sandbox/child.c, the child between
# clone3 and execve, calls nothing outside itself but memset, memcpy and
# strlen, which the compiler may put in for its loops (and
# the stack protector's failure): every system call is raw (rawsys.h). A
# libc wrapper would write errno, which is the tracer thread's while the
# child shares the supervisor's memory (CLONE_VM, sandbox/run.c), or take
# a lock some other thread of the supervisor holds.
set -eu
obj=
IFS=';'
for o in $1; do
	case "$o" in */child.c.o) obj=$o ;; esac
done
unset IFS
[ -n "$obj" ] || { echo "child_raw: no child.c.o among the sandbox's objects" >&2; exit 1; }
bad=$(nm -u "$obj" | awk '{print $NF}' |
	grep -Ev '^(memset|memcpy|strlen|__stack_chk_fail|_GLOBAL_OFFSET_TABLE_)$' || true)
if [ -n "$bad" ]; then
	echo "child_raw: $obj calls outside itself:" $bad >&2
	exit 1
fi
echo "child_raw: $obj: only" $(nm -u "$obj" | awk '{print $NF}')
