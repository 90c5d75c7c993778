#!/bin/sh
# tests/registry/readonly_home.sh TOOLGATE SQLEXEC: a home this process
# cannot write is inspected, never written. As root: the home bind-mounted
# read-only in a mount namespace of its own (unshare -m), and a copy of it
# read by user nobody (setpriv). Each command that only reads prints
# exactly what it prints on the same home writable, with the same exit; each
# command that writes fails at open with the exact "the home at PATH is
# read-only (EROFS)" line (EACCES for nobody), exit 3; the sha256 of every
# file of the home is unchanged. A registry.db behind the store, or one
# that needs a migration, is said so (exit 3) and not repaired; verify
# reports what it could not re-index. Exit 77 (skipped) without root or
# mount namespaces.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "readonly_home: skipped (needs root)"; exit 77; }
unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" &&
	! touch "$1/probe"' sh "$WORK" 2>/dev/null ||
	{ echo "readonly_home: skipped (no read-only bind mount in a mount namespace)"; exit 77; }

# ro CMD...: toolgate on $HOME_DIR mounted read-only (this process only)
ro() {
	unshare -m sh -c 'h=$1; shift; mount --bind "$h" "$h" && mount -o remount,bind,ro "$h" &&
		exec "$@"' sh "$HOME_DIR" "$TG" --home "$HOME_DIR" "$@"
}
# same A B: the two outputs are equal but for status's "home" line (the
# writable runs grow registry.db's WAL) and its "cpu" line (whether this
# user may write the cpu cgroup)
same() {
	[ "$(sed -e '/^home  /d' -e '/^cpu  /d' "$1")" = "$(sed -e '/^home  /d' -e '/^cpu  /d' "$2")" ]
}
# sums DIR: the sha256 of every file under DIR, by name
sums() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum); }

# a home with two signed versions, calls, recorded samples, a token and a
# remote
run tg init
expect_rc 0 "init"
run tg key init
expect_rc 0 "key init"
d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create v1"
for i in 1 2; do
	run tg call word_count '{"text":"a b c"}'
	expect_rc 0 "call $i"
done
run tg token add reader
expect_rc 0 "token add"
run tg remote add origin "$WORK/elsewhere.git"
expect_rc 0 "remote add"
# the last write, a create, leaves registry.db's store fingerprint stale:
# the read-only opens below compare registry.db with the store, writing
# nothing
sed -i 's/^/ /' "$d/word_count.c"
run tg create "$d"
expect_rc 0 "create v2"

READS="list|list --pending|list --json|show word_count|show word_count@1|history word_count|diff word_count 1 2|log|log --tool word_count --limit 2|status|verify|verify --json|samples word_count|approvals|token list|remote list|policy|show-run 1|key show"

# each reading command on the read-only home first (the home's files
# summed around them all), then on the same home writable: equal outputs
# and exits
before=$(sums "$HOME_DIR")
IFS='|'
n=0
for c in $READS; do
	IFS=' '
	n=$((n + 1))
	# shellcheck disable=SC2086
	ro $c >"$WORK/ro$n.out" 2>"$WORK/ro$n.err"
	echo $? >"$WORK/ro$n.rc"
	IFS='|'
done
IFS=' '
checks=$((checks + 1))
[ "$before" = "$(sums "$HOME_DIR")" ] || { fails=$((fails + 1)); echo "FAIL: the reading commands changed the read-only home"; }
IFS='|'
n=0
for c in $READS; do
	IFS=' '
	n=$((n + 1))
	# shellcheck disable=SC2086
	tg $c >"$WORK/rw.out" 2>"$WORK/rw.err"
	echo $? >"$WORK/rw.rc"
	checks=$((checks + 1))
	if ! same "$WORK/ro$n.out" "$WORK/rw.out" || ! cmp -s "$WORK/ro$n.err" "$WORK/rw.err" ||
	   ! cmp -s "$WORK/ro$n.rc" "$WORK/rw.rc"; then
		fails=$((fails + 1))
		echo "FAIL: '$c' differs on the read-only home (exit $(cat "$WORK/ro$n.rc"), writable $(cat "$WORK/rw.rc"))"
		diff "$WORK/rw.out" "$WORK/ro$n.out" | head -20
		diff "$WORK/rw.err" "$WORK/ro$n.err" | head -20
	fi
	IFS='|'
done
IFS=' '
# the exits the comparison took for granted
ro status >"$OUT" 2>"$ERR"; rc=$?
expect_rc 0 "status on the read-only home"
expect_out '^home +[0-9.]+ MiB of 1024.0 MiB \(quota_home_mb\): store [0-9.]+ MiB, cache [0-9.]+ MiB, registry.db [0-9.]+ MiB$' "status measures the read-only home"
ro list >"$OUT" 2>"$ERR"; rc=$?
expect_rc 0 "list on the read-only home"
expect_out '^word_count +v2 ' "list names the active version"
ro verify >"$OUT" 2>"$ERR"; rc=$?
expect_rc 0 "verify on the read-only home"
expect_out '^ok: 1 tools, 2 versions checked$' "verify checked every version"
expect_out '^note: signatures: 0 good \(by a trusted signer\), 2 valid by keys not in trusted_signers, 0 unsigned$' "verify checked both signatures"
expect_out '^note: audit log: 14 entries checked$' "verify checked the audit chain"

# every write: the exact line, exit 3, before anything is done
H=$HOME_DIR
before=$(sums "$HOME_DIR")
while IFS='|' read -r what args; do
	# shellcheck disable=SC2086
	ro $args >"$OUT" 2>"$ERR"; rc=$?
	expect_rc 3 "$what on the read-only home"
	checks=$((checks + 1))
	[ "$(cat "$ERR")" = "toolgate: $what: the home at $H is read-only (EROFS)" ] ||
		fail "$what: not the EROFS line"
	checks=$((checks + 1))
	[ ! -s "$OUT" ] || fail "$what: printed on stdout"
done <<EOF
create|create $d
call|call word_count {"text":"x"}
approve|approve word_count@1
rollback|rollback word_count --to 1
remove|remove word_count
deny|deny word_count@1
promote|promote word_count@1
gc|gc
log|log --archive 2
verify|verify --acknowledge-rebuild
samples purge|samples purge word_count
token|token add other
remote|remote add other /nowhere
key|key init
EOF
after=$(sums "$HOME_DIR")
checks=$((checks + 1))
[ "$before" = "$after" ] || { fails=$((fails + 1)); echo "FAIL: the read-only runs changed the home"; }

# registry.db behind the store: said (exit 3), and verify reports it
cp -a "$HOME_DIR" "$WORK/saved"
"$SQLX" "$HOME_DIR/registry.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp "$HOME_DIR/registry.db" "$WORK/old.db"
cp "$HOME_DIR/audit.anchor" "$WORK/old.anchor"
sed -i 's/^ //' "$d/word_count.c"
sed -i 's/a b/a  b/' "$d/tool.json"
run tg create "$d"
expect_rc 0 "create one more version"
rm -f "$HOME_DIR/registry.db-wal" "$HOME_DIR/registry.db-shm"
cp "$WORK/old.db" "$HOME_DIR/registry.db"
cp "$WORK/old.anchor" "$HOME_DIR/audit.anchor"
before=$(sums "$HOME_DIR")
ro list >"$OUT" 2>"$ERR"; rc=$?
expect_rc 3 "list on a read-only home whose registry.db is behind the store"
expect_err '^toolgate: list: word_count: could not be re-indexed from the store: registry.db lacks the versions after v2 that the store holds, and the home is read-only \(a command on a writable home re-indexes it\)$' "list says registry.db is behind"
ro verify >"$OUT" 2>"$ERR"; rc=$?
expect_rc 1 "verify on a read-only home whose registry.db is behind the store"
expect_out '^PROBLEM: word_count: could not be re-indexed from the store: registry.db lacks the versions after v2 that the store holds, and the home is read-only$' "verify names what it could not re-index"
expect_out '^FAILED: ' "verify fails"
checks=$((checks + 1))
[ "$before" = "$(sums "$HOME_DIR")" ] || { fails=$((fails + 1)); echo "FAIL: the behind registry.db was written"; }
# writable, the same list re-indexes and verify is ok again
run tg list
expect_rc 0 "list on the writable home re-indexes"
run tg verify
expect_rc 0 "verify after the re-index"

# a registry.db that needs a migration is said so, not migrated
cur=$("$SQLX" "$HOME_DIR/registry.db" "PRAGMA user_version")
"$SQLX" "$HOME_DIR/registry.db" "PRAGMA user_version = $((cur - 1))" >/dev/null
before=$(sums "$HOME_DIR")
ro status >"$OUT" 2>"$ERR"; rc=$?
expect_rc 3 "status on a read-only home whose registry.db needs a migration"
expect_err "^toolgate: status: the home at $H is read-only and its registry.db has schema version $((cur - 1)), this toolgate reads $cur \(a command on a writable home migrates it\)$" "the migration is named"
checks=$((checks + 1))
[ "$before" = "$(sums "$HOME_DIR")" ] || { fails=$((fails + 1)); echo "FAIL: the old registry.db was written"; }

# a -wal with content but no -shm: a read-only folder cannot hold the -shm
# that reading the WAL needs; said so, not read as if the WAL were empty
# (a rollback moves a ref: the next open re-indexes and records the store's
# fingerprint without fsync, which leaves the WAL in place)
"$SQLX" "$HOME_DIR/registry.db" "PRAGMA user_version = $cur" >/dev/null
run tg rollback word_count --to 1
expect_rc 0 "rollback on the writable home"
run tg list
expect_rc 0 "list on the writable home"
if [ -s "$HOME_DIR/registry.db-wal" ]; then
	rm -f "$HOME_DIR/registry.db-shm"
	ro list >"$OUT" 2>"$ERR"; rc=$?
	expect_rc 3 "list on a read-only home with a -wal and no -shm"
	checks=$((checks + 1))
	[ "$(cat "$ERR")" = "toolgate: list: the home at $H is read-only and registry.db-wal holds changes that cannot be read without a registry.db-shm, which the home cannot hold (a command on a writable home checkpoints them)" ] ||
		fail "the -wal without -shm: not the exact line"
else
	echo "readonly_home: no -wal was left to read: the -wal without -shm case is skipped"
fi

# a home of root that user nobody may read (not write): same outputs
rm -rf "$HOME_DIR"
cp -a "$WORK/saved" "$HOME_DIR"
chmod -R go+rX "$WORK"
nob() { HOME=/nonexistent setpriv --reuid=65534 --regid=65534 --clear-groups "$TG" --home "$HOME_DIR" "$@"; }
if nob list >/dev/null 2>&1 || [ $? -ne 126 ]; then
	before=$(sums "$HOME_DIR")
	NREADS="list|show word_count@2|history word_count|log|verify|samples word_count|status"
	IFS='|'
	n=0
	for c in $NREADS; do
		IFS=' '
		n=$((n + 1))
		# shellcheck disable=SC2086
		nob $c >"$WORK/nob$n.out" 2>"$WORK/nob$n.err"
		echo $? >"$WORK/nob$n.rc"
		IFS='|'
	done
	IFS=' '
	run nob call word_count '{"text":"x"}'
	expect_rc 3 "call by nobody"
	checks=$((checks + 1))
	[ "$(cat "$ERR")" = "toolgate: call: the home at $H is not writable by this user: $H: Permission denied (EACCES)" ] ||
		fail "call by nobody: not the EACCES line"
	checks=$((checks + 1))
	[ "$before" = "$(sums "$HOME_DIR")" ] || { fails=$((fails + 1)); echo "FAIL: user nobody changed the home"; }
	# the same commands by root, on the home it can write
	IFS='|'
	n=0
	for c in $NREADS; do
		IFS=' '
		n=$((n + 1))
		# shellcheck disable=SC2086
		tg $c >"$WORK/rw.out" 2>"$WORK/rw.err"
		echo $? >"$WORK/rw.rc"
		checks=$((checks + 1))
		if ! same "$WORK/nob$n.out" "$WORK/rw.out" || ! cmp -s "$WORK/nob$n.err" "$WORK/rw.err" ||
		   ! cmp -s "$WORK/nob$n.rc" "$WORK/rw.rc"; then
			fails=$((fails + 1))
			echo "FAIL: '$c' differs for user nobody (exit $(cat "$WORK/nob$n.rc"), root $(cat "$WORK/rw.rc"))"
			diff "$WORK/rw.out" "$WORK/nob$n.out" | head -20
			diff "$WORK/rw.err" "$WORK/nob$n.err" | head -20
		fi
		IFS='|'
	done
	IFS=' '
else
	echo "readonly_home: user nobody cannot run $TG here: that part is skipped"
fi
finish readonly_home
