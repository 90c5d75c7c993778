#!/bin/sh
# tests/vm/suite.sh WHO: the checks run inside the VM (stock Debian kernel,
# cgroup v2 only), as root or as an ordinary user. Each check prints
# "VMTEST ok <who> <name>" or "VMTEST FAIL <who> <name>: ..."; the host side
# (vm_test.sh) counts them. WHO is "root", "user" (TOOLGATE_CGROUP names a
# delegated folder), "nocg" (an ordinary user with nothing delegated) or
# "nouserns" (user.max_user_namespaces=0).
who=$1
tg=/tg/toolgate
at=/tg/attacks
tmp=/tmp/vm-$who
mkdir -p "$tmp"

check() { # name expected actual
	if [ "$2" = "$3" ]; then
		echo "VMTEST ok $who $1"
	else
		echo "VMTEST FAIL $who $1: expected [$2] got [$3]"
	fi
}
# a field of the --json result: "key": value (quotes and comma dropped)
field() {
	sed -n -e "s/^  \"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^  \"$1\": \([^\",]*\),\{0,1\}\$/\1/p" "$tmp/out" | head -n 1
}
run() { # sandbox exec --json ARGS...: sets rc
	"$tg" sandbox exec --json "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
note() { grep -c 'limits were rlimits only' "$tmp/err"; }

if [ "$who" = nouserns ]; then
	run -- "$at/attack_echo_stdin"
	check "refused run exits 3" 3 "$rc"
	check "names the sysctl" 1 "$(grep -c 'user namespaces are disabled: user.max_user_namespaces is 0' "$tmp/err")"
	check "points to doctor" 1 "$(grep -c 'run `toolgate doctor`' "$tmp/err")"
	check "no ENOSPC text alone" 0 "$(grep -c '^toolgate: sandbox: No space left on device' "$tmp/err")"
	"$tg" --home "$tmp/home" init >/dev/null 2>&1
	"$tg" --home "$tmp/home" doctor >"$tmp/out" 2>&1
	check "doctor exits 1" 1 "$?"
	check "doctor: userns fails" 1 "$(grep -c '^fail  userns     user namespaces are disabled: user.max_user_namespaces is 0' "$tmp/out")"
	check "doctor: fix line" 1 "$(grep -c 'fix: sysctl -w user.max_user_namespaces=' "$tmp/out")"
	exit 0
fi

if [ "$who" = user ]; then
	"$tg" --home "$tmp/home" init >/dev/null 2>&1
	"$tg" --home "$tmp/home" doctor >"$tmp/out" 2>&1
	check "doctor: cgroups from the delegated folder" 1 \
		"$(grep -c "^ok    cgroups    cgroup v2 memory and pids limits, hierarchy v2, delegated folder $TOOLGATE_CGROUP" "$tmp/out")"
fi

# Memory: with cgroups the OOM killer ends it (SIGKILL, reason memory);
# with rlimits only (nocg) RLIMIT_AS makes malloc fail and it exits 0.
run --memory-mb 32 --timeout-ms 20000 -- "$at/attack_memory_bomb"
if [ "$who" = nocg ]; then
	check "memory: rlimit only, malloc fails" "exited 0" "$(field reason) $(field exit_code)"
	check "memory: fallback said on stderr" 1 "$(note)"
else
	check "memory: cgroup OOM" "memory 9" "$(field reason) $(field signal)"
	check "memory: exit status" 1 "$rc"
	check "memory: no rlimit note" 0 "$(note)"
	rss=$(field max_rss_kb)
	check "memory: rss under 40 MB" yes "$([ "${rss:-999999}" -lt 40960 ] && echo yes || echo "no ($rss)")"
fi

# Processes: the default max_procs is 1, so not even one thread.
run --timeout-ms 20000 -- "$at/attack_thread_bomb"
check "pids: no thread" 'threads=0 error=EAGAIN\n' "$(field stdout)"
run --timeout-ms 20000 -- "$at/attack_fork_bomb"
check "pids: fork refused" "exited 0" "$(field reason) $(field exit_code)"
check "pids: forked none" 1 "$(grep -c 'forked=0' "$tmp/out")"

# Wall-clock timeout.
run --timeout-ms 1500 -- "$at/attack_busy_loop"
check "timeout: reason" "timeout 9" "$(field reason) $(field signal)"

# Output cap.
run --output-kb 4 --timeout-ms 20000 -- "$at/attack_stdout_flood"
check "output: reason" output_limit "$(field reason)"

# seccomp: the denied syscall is named.
run --timeout-ms 20000 -- "$at/attack_ptrace"
check "seccomp: ptrace" "seccomp ptrace" "$(field reason) $(field syscall)"
run --timeout-ms 20000 -- "$at/attack_denied" bpf
check "seccomp: bpf" "seccomp bpf" "$(field reason) $(field syscall)"
run --timeout-ms 20000 -- "$at/attack_io_uring"
check "io_uring: ENOSYS" 'io_uring_setup: ENOSYS\n' "$(field stdout)"

# Attacks that must find nothing: no network, no files of the host.
run --timeout-ms 20000 -- "$at/attack_net_tcp"
check "net_tcp: no socket" 'socket: EACCES\n' "$(field stdout)"
run --timeout-ms 20000 -- "$at/attack_read_files"
check "read_files: no host files" 1 "$(grep -c '/etc/shadow: ENOENT' "$tmp/out")"
run --timeout-ms 20000 -- "$at/attack_identity"
check "identity: hostname" 1 "$(grep -c 'hostname=toolgate' "$tmp/out")"
exit 0
