#!/bin/sh
# tests/registry/workspace_open.sh TOOLGATE SQLEXEC: a workspace tool opens a
# path it computed with the SDK's tg_workspace_open (papercut 1 of issue 29),
# end to end on a real workspace: read_file (tools/read_file.c) is created,
# approved and called; a file and a file in a sub-folder are read, and "..",
# an absolute path elsewhere, symbolic links out (the file itself or a folder
# on the way), empty and over-long names are refused with the exact reason.
# A tool opening for writing with only workspace:read, or without any
# workspace capability, is rejected by the analyzer with the exact finding.
# `show` names the host folder a workspace capability grants.
. "$(dirname "$0")/lib.sh"

run tg init
expect_rc 0 "init"
ws=$WORK/ws
mkdir -p "$ws/sub" "$WORK/outside"
printf 'hello world\n' >"$ws/notes.txt"
printf '12345' >"$ws/sub/data.txt"
printf 'secret\n' >"$WORK/outside/secret.txt"
ln -s "$WORK/outside/secret.txt" "$ws/link_out"
ln -s "$WORK/outside" "$ws/dir_out"
printf '{"workspace": "%s"}\n' "$ws" >"$HOME_DIR/config.json"

d=$WORK/src/read_file
mkdir -p "$d"
cp "$HERE/tools/read_file.c" "$d/tool.c"
sed 's/"source": "read_file.c"/"source": "tool.c"/' "$HERE/tools/read_file.json" >"$d/tool.json"
run tg create "$d"
expect_rc 0 "create read_file"
expect_out '^read_file v1: pending' "pending its approval"
run tg show read_file
expect_out "^workspace:    $ws bound at /workspace, read-only \\(the home's config\\.json\\)\$" \
	"show names the host folder the approval grants"
run tg show read_file --json
expect_out "^    \"host\": \"$ws\",\$" "the host folder in JSON"
expect_out '^    "access": "read-only"$' "its access in JSON"
run tg approve read_file@1
expect_rc 0 "approve"

call_ok() { # FILE BYTES
	run tg call read_file "{\"file\": \"$1\"}"
	expect_rc 0 "read $1"
	expect_out "^\\{\"file\":\"$1\",\"bytes\":$2\\}\$" "the size of $1"
}
call_refused() { # FILE REASON-REGEX
	run tg call read_file "{\"file\": \"$1\"}"
	expect_rc 1 "refused: $1"
	expect_err "^toolgate: call read_file: $2\$" "the reason for $1"
}
call_ok notes.txt 12
call_ok sub/data.txt 5
call_ok /workspace/notes.txt 12
call_refused ../x '\.\./x: a "\.\." component: the file must be under /workspace'
call_refused sub/../../x 'sub/\.\./\.\./x: a "\.\." component: the file must be under /workspace'
call_refused /etc/passwd '/etc/passwd: an absolute path outside /workspace: name the file relative to /workspace'
call_refused link_out 'link_out: "link_out" is a symbolic link, which is not followed'
call_refused dir_out/secret.txt 'dir_out/secret.txt: "dir_out" is a symbolic link, which is not followed'
call_refused '' ': the path is empty'
call_refused 'sub//data.txt' 'sub//data.txt: an empty component \(a doubled or trailing "/"\)'
call_refused './notes.txt' '\./notes.txt: a "\." component'
call_refused nope.txt 'nope.txt: "nope.txt" does not exist'
call_refused notes.txt/x 'notes.txt/x: "notes.txt" is not a folder'
long=$(printf 'a%.0s' $(seq 1 256))
call_refused "$long" "$long: a component is longer than 255 bytes"
checks=$((checks + 1))
tg log --json | grep -q secret && fail "the secret outside the workspace surfaced"

# show without a workspace configured; a tool without a workspace capability
# shows no workspace line
cp "$HOME_DIR/config.json" "$WORK/config.saved"
echo '{}' >"$HOME_DIR/config.json"
run tg show read_file
expect_out '^workspace:    none configured: its runs are refused until a person sets "workspace" in the home'"'"'s config\.json$' \
	"show says no folder is configured"
cp "$WORK/config.saved" "$HOME_DIR/config.json"

# the analyzer: a mode that writes needs workspace:write; no capability, no call
w=$WORK/src/writer
mkdir -p "$w"
sed 's/"r")/"a")/' "$HERE/tools/read_file.c" >"$w/tool.c"
sed 's/"source": "read_file.c"/"source": "tool.c"/; s/"read_file"/"writer"/' \
	"$HERE/tools/read_file.json" >"$w/tool.json"
run tg create "$w"
expect_rc 1 "a write mode with workspace:read only"
expect_out '^  finding \[error\] file_access: tg_workspace_open: mode "a" writes, which needs the workspace:write capability \(source line 10:12, symbol tg_workspace_open\)$' \
	"the exact finding"
sed -i 's/"a")/"r")/' "$w/tool.c"
printf '%s\n' '{"name": "writer", "description": "no capability", "source": "tool.c",' \
	'"input_schema": {"type": "object", "properties": {"file": {"type": "string"}}},' \
	'"tests": [{"name": "t", "args": {"file": "x"}, "expect": {}}]}' >"$w/tool.json"
run tg create "$w"
expect_rc 1 "no workspace capability"
expect_out '^  finding \[error\] file_access: tg_workspace_open: the tool has no workspace capability \(workspace:read to read, workspace:write to write\) \(source line 10:12, symbol tg_workspace_open\)$' \
	"the exact finding without a capability"
run tg show writer@2
checks=$((checks + 1))
grep -q '^workspace:' "$OUT" && fail "a tool without a workspace capability shows a workspace"

finish workspace_open
