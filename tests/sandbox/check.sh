# tests/sandbox/check.sh: sourced by the shell tests here (cli_sandbox.sh, gvisor_*.sh):
# check NAME EXPECTED ACTUAL prints ok or FAIL and counts failures in $fails.
fails=0
check() { # name expected actual
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: expected [$2] got [$3]"
		fails=$((fails + 1))
	else
		echo "ok   $1"
	fi
}
