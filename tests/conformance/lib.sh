# tests/conformance/lib.sh: what run.sh and inspector.sh share (sourced).
# work_dir makes $work, a temporary folder removed at exit with the server
# started by serve_http (its pid in $pid). serve_http TOOLGATE HOME [ARG...]
# starts `serve --http 127.0.0.1:0 ARG...` on HOME, its stderr in
# $work/serve.log, and sets $url to the endpoint it prints (empty when it
# did not start within 10 s).
work_dir() {
	work=$(mktemp -d)
	pid=
	trap 'cleanup' EXIT
	trap "exit 1" INT TERM
}

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}

serve_http() {
	sh_tg=$1
	sh_home=$2
	shift 2
	"$sh_tg" --home "$sh_home" serve --http 127.0.0.1:0 "$@" 2>"$work/serve.log" &
	pid=$!
	url=
	for _ in $(seq 100); do
		url=$(sed -n 's/.*listening on \(http:[^ ]*\/mcp\).*/\1/p' "$work/serve.log")
		[ -n "$url" ] && break
		sleep 0.1
	done
}
