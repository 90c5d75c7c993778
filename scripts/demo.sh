#!/bin/sh
# scripts/demo.sh: the demo of `make demo`, on the default home. It shows
# what is built so far; it grows with each module.
set -eu
tg=${1:-build/cli/toolgate}
echo "== toolgate init (default home)"
"$tg" init
echo "== toolgate --help"
"$tg" --help
