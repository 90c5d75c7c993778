#!/bin/sh
# examples/ledger/ledger_append.sh FOLDER: a host tool (docs/BRIDGE.md). It
# runs outside the tool sandbox, as the operator: it appends the call's
# arguments (one JSON object on stdin) and the caller ($TOOLGATE_CALLER) as
# one line to FOLDER/ledger.jsonl, a folder the operator chose in
# config.json, and answers {"entry": N}, the line's number.
set -eu
dir=$1
IFS= read -r args || [ -n "$args" ]
printf '{"caller":"%s","args":%s}\n' "$TOOLGATE_CALLER" "$args" >>"$dir/ledger.jsonl"
printf '{"entry":%d}\n' "$(wc -l <"$dir/ledger.jsonl")"
