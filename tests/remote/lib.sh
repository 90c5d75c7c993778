# tests/remote/lib.sh: shared set-up of the remote tests, sourced after the
# caller has defined fail(). git_daemon_start serves the bare repositories
# under SRV through `git daemon` on a free port of 127.0.0.1 and waits until
# it answers; it sets PORT and DPID (the caller's cleanup kills DPID). The
# port is picked free and then bound by the daemon, so another process can
# take it in between: a daemon that exits at once is started again on a new
# port. Extra arguments go to git daemon (e.g. --enable=receive-pack).
# Usage: git_daemon_start SRV REPO [ARG...]   (REPO: a name under SRV)
git_daemon_start() {
	gd_srv=$1
	gd_repo=$2
	shift 2
	for gd_try in 1 2 3 4 5; do
		PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
		git daemon --base-path="$gd_srv" --export-all --reuseaddr --listen=127.0.0.1 \
			--port="$PORT" "$@" "$gd_srv" 2>>"$gd_srv/../daemon.log" &
		DPID=$!
		gd_i=0
		while kill -0 "$DPID" 2>/dev/null && [ $gd_i -lt 100 ]; do
			git ls-remote "git://127.0.0.1:$PORT/$gd_repo" >/dev/null 2>&1 && return 0
			gd_i=$((gd_i + 1))
			sleep 0.1
		done
		kill "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null || true
		DPID=
	done
	fail "git daemon did not start (try $gd_try): $(tail -3 "$gd_srv/../daemon.log")"
}
