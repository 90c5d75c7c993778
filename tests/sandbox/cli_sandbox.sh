#!/bin/sh
# tests/sandbox/cli_sandbox.sh TOOLGATE ATTACK_DIR: `toolgate sandbox exec`
# end to end: exit statuses (program's own, 1 when killed, 2 bad usage),
# the "killed:" line, stdin passing, --json, dynamic programs and PATH lookup,
# --cpu-s (CPU time apart from the wall-clock timeout).
set -u
tg=$1
at=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/check.sh"

run() { # args...: sets rc, out, err
	"$tg" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	# (without cgroups, e.g. not root, a note line is added: not under test here)
	err=$(grep -v '^toolgate: sandbox: note:' "$tmp/err")
}

run sandbox; check "no subcommand" 2 "$rc"
run sandbox run -- /bin/true; check "unknown subcommand" 2 "$rc"
run sandbox exec; check "no program" 2 "$rc"
run sandbox exec --bogus -- /bin/true; check "unknown flag" 2 "$rc"
run sandbox exec --timeout-ms abc -- /bin/true; check "bad number" 2 "$rc"
run sandbox exec --timeout-ms 0 -- /bin/true; check "zero" 2 "$rc"
run sandbox exec --memory-mb -- /bin/true; check "missing value" 2 "$rc"
run sandbox exec -- /nonexistent/prog; check "missing program" 2 "$rc"
printf '#!/bin/sh\necho hi\n' >"$tmp/script"; chmod 755 "$tmp/script"
run sandbox exec -- "$tmp/script"; check "not an ELF file" 2 "$rc"

printf 'from stdin' | "$tg" sandbox exec -- "$at/attack_echo_stdin" "to stderr" 5 >"$tmp/out" 2>"$tmp/err"
check "exit status passed through" 5 "$?"
check "stdin to stdout" "from stdin" "$(cat "$tmp/out")"
check "stderr" "to stderr" "$(grep -v '^toolgate: sandbox: note:' "$tmp/err")"

run sandbox exec --timeout-ms 200 -- "$at/attack_busy_loop"
check "timeout exits 1" 1 "$rc"
check "timeout line" "toolgate: sandbox: killed: timeout" "$err"
# --cpu-s: CPU time apart from the 30 s wall-clock timeout
run sandbox exec --cpu-s 1 --timeout-ms 30000 -- "$at/attack_busy_loop"
check "cpu limit exits 1" 1 "$rc"
check "cpu limit line" "toolgate: sandbox: killed: cpu" "$err"
run sandbox exec --cpu-s 601 -- "$at/attack_busy_loop"
check "cpu limit over 600 s refused" "2 toolgate: sandbox: limit too large (max 600000 ms, 65536 MB, 1048576 KB, 1024 processes, 6400 percent, 600 s of CPU) (see 'toolgate sandbox --help')" "$rc $err"

run sandbox exec -- "$at/attack_ptrace"
check "seccomp exits 1" 1 "$rc"
check "seccomp line" "toolgate: sandbox: killed: seccomp ptrace" "$err"

run sandbox exec --output-kb 4 -- "$at/attack_stdout_flood"
check "output cap exits 1" 1 "$rc"
check "output cap size" 4096 "$(wc -c <"$tmp/out" | tr -d ' ')"

run --json sandbox exec -- "$at/attack_denied" bpf
check "json seccomp exits 1" 1 "$rc"
check "json reason" 1 "$(grep -c '"reason": "seccomp"' "$tmp/out")"
check "json syscall" 1 "$(grep -c '"syscall": "bpf"' "$tmp/out")"
check "json exit_code null" 1 "$(grep -c '"exit_code": null' "$tmp/out")"

run sandbox exec --json -- /bin/echo hi
check "json after exec" 0 "$rc"
check "json stdout" 1 "$(grep -c '"stdout": "hi\\n"' "$tmp/out")"

run sandbox exec -- echo dynamic via PATH
check "dynamic + PATH" "dynamic via PATH" "$out"
check "dynamic rc" 0 "$rc"

run sandbox exec -- "$at/attack_identity"
check "identity rc" 0 "$rc"
check "hostname" 1 "$(printf '%s\n' "$out" | grep -c '^hostname=toolgate$')"

run sandbox exec -- /bin/sh -c 'echo via sh; exit 4'
check "program through a symlink" "via sh" "$out"
check "its status" 4 "$rc"

run sandbox exec --timeout-ms 10000 -- "$at/attack_crash" segv
check "crash exits 1" 1 "$rc"
check "crash line" "toolgate: sandbox: killed: signaled SIGSEGV" "$err"
run --json sandbox exec -- "$at/attack_crash" abort
check "json signal_name" 1 "$(grep -c '"signal_name": "SIGABRT"' "$tmp/out")"
check "json signaled" 1 "$(grep -c '"reason": "signaled"' "$tmp/out")"

# every error message ends with a newline
for args in "sandbox exec -- /nonexistent/prog" "sandbox exec --bogus -- /bin/true" \
	"sandbox exec" "sandbox exec -- $tmp/script" "sandbox exec -- $tmp"; do
	# shellcheck disable=SC2086
	"$tg" $args >/dev/null 2>"$tmp/err" </dev/null
	check "newline after: $args" "" "$(tail -c 1 "$tmp/err" | tr -d '\n')"
	check "message for: $args" 1 "$([ -s "$tmp/err" ] && echo 1 || echo 0)"
done

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all passed"
