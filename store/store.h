/*
 * store/store.h: the public interface of the git-backed version store.
 *
 * A bare, branch-free repository: refs/tools/<name> is the history of one
 * tool (one commit per submitted version, holding its files, with the version
 * number and other facts in commit trailers); refs/active/<name> points at
 * the active version's commit. Every ref update is a compare-and-swap, so
 * several processes can write at once and lose nothing.
 *
 * Only store/ includes git2.h.
 */
#ifndef TG_STORE_H
#define TG_STORE_H

#include "common/common.h"

typedef struct tg_store tg_store;

typedef struct tg_store_file {
	const char *path;   /* a plain file name: [A-Za-z0-9._-]+, no "..", no "/" */
	const char *data;
	size_t len;
} tg_store_file;

typedef struct tg_store_trailer {
	const char *key;    /* e.g. "Toolgate-Verdict" */
	const char *value;  /* one line */
} tg_store_trailer;

typedef struct tg_store_put_opts {
	const char *tool;                 /* a valid tool name */
	const tg_store_file *files;
	size_t nfiles;
	const tg_store_trailer *trailers; /* added after Toolgate-Version */
	size_t ntrailers;
	const char *subject;              /* first line of the commit message */
	const char *author_name;          /* NULL = "toolgate" */
	const char *author_email;         /* NULL = "toolgate@localhost" */
} tg_store_put_opts;

/* One version as read back. */
typedef struct tg_store_version {
	char *tool;
	unsigned version;                 /* 1, 2, ... per tool */
	char commit[41];                  /* hex commit id */
	int64_t time;                     /* commit time, seconds since the epoch */
	char *subject;
	tg_store_trailer *trailers;       /* owned (key/value strings too) */
	size_t ntrailers;
} tg_store_version;

typedef struct tg_store_version_list {
	size_t n;
	tg_store_version *items;          /* newest first */
} tg_store_version_list;

typedef struct tg_store_problem_list {
	size_t n;
	char **items;                     /* one line each */
} tg_store_problem_list;

/* Open (create=1: create if missing) the bare repository at path. Clears
 * stale ref lock files left by a crash (under an flock of its own).
 * create=TG_STORE_OPEN_READONLY: open an existing store for reading only
 * (a read-only home): no lock file, no sweep, no config written; every
 * write through the handle fails ("the store was opened read-only"). */
int tg_store_open(tg_store **out, const char *path, int create);
#define TG_STORE_OPEN_READONLY 2
void tg_store_free(tg_store *s);
/* Remove what killed processes left in the store at path and no live
 * process owns (the flock conventions of quarantine.c and pack.c): a pull's
 * quarantine, a packer's libgit2 temporary pack. Plain file system calls,
 * no libgit2: the registry runs it at every open (tg_store_open too). */
void tg_store_sweep(const char *path);
/* fsync of objects, refs and reflogs (GIT_OPT_ENABLE_FSYNC_GITDIR) for the
 * whole process, for stores opened afterwards; on by default. Only tests
 * and benchmarks turn it off. */
void tg_store_set_fsync(int enabled);

/* Commit a new version on refs/tools/<tool>: version = previous + 1,
 * compare-and-swap on the ref, retried on conflict. */
int tg_store_put(tg_store_version **out, tg_store *s, const tg_store_put_opts *o);
/* One version's metadata; TG_ERR_NOTFOUND when absent. */
int tg_store_get_version(tg_store_version **out, tg_store *s, const char *tool, unsigned version);
/* One file of a version; TG_ERR_NOTFOUND when absent. */
int tg_store_get_file(char **out, size_t *len_out, tg_store *s, const char *tool,
		      unsigned version, const char *path);
/* Every version of one tool, newest first (walks only that tool's history). */
int tg_store_list_versions(tg_store_version_list **out, tg_store *s, const char *tool);
/* Every tool name, sorted. */
int tg_store_list_tools(char ***out, size_t *n_out, tg_store *s);
void tg_store_free_names(char **names, size_t n);
/* Unified diff of every file between two versions. */
int tg_store_diff(char **out, tg_store *s, const char *tool, unsigned v1, unsigned v2);

/* The active version (0 when none), with its commit id when out_commit != NULL. */
int tg_store_get_active(unsigned *out_version, char out_commit[41], tg_store *s, const char *tool);
/* Point refs/active/<tool> at version, only if it currently points at
 * expected_version (0 = expect no active ref); TG_ERR_CONFLICT otherwise.
 * The message goes to the reflog. */
int tg_store_set_active(tg_store *s, const char *tool, unsigned version,
			unsigned expected_version, const char *message);
/* Remove refs/active/<tool> if it points at expected_version. */
int tg_store_clear_active(tg_store *s, const char *tool, unsigned expected_version,
			  const char *message);

/* Undo the put of version when its caller failed afterwards: move
 * refs/tools/<tool> back from commit (it must still be the tip, and not the
 * active version) to its parent, or delete the ref for version 1. The
 * reflog keeps the record. TG_ERR_CONFLICT when another writer got there
 * first (then nothing changes). */
int tg_store_drop_version(tg_store *s, const char *tool, unsigned version, const char *commit,
			  const char *message);

/* Check every ref resolves and every version commit has tool.json, a
 * source, and the Toolgate-Version trailer in sequence. 0 = no problem.
 * When the check ran, *out holds the problems found (one line each, n == 0
 * when none) and the return is 0 if there are none, TG_ERR_INTERNAL if
 * there are some; when it could not run, *out is NULL. */
int tg_store_verify(tg_store_problem_list **out, tg_store *s);
/* Read every ref once (one iterator pass, packed-refs once) and the set of
 * commits with a local note; until tg_store_snapshot_release (or any ref
 * write of this handle) lookups by tool name answer from it. For a caller
 * that reads every tool (verify). 0 also when no snapshot could be taken
 * (an unreadable ref): lookups then go to the refs as before. A snapshot
 * already held is kept. */
int tg_store_snapshot_refs(tg_store *s);
void tg_store_snapshot_release(tg_store *s);

/* Push also carries refs/notes/toolgate-review, as refs/toolgate-review/<id>
 * on the remote (id: 16 lowercase hex digits naming this host; NULL or ""
 * stops it); pull reads the signed decision lines of every such ref. */
int tg_store_set_review_id(tg_store *s, const char *id);
/* Push / fetch every refs/tools/<name> and refs/active/<name> to / from a repository at
 * a path or a file://, git://, ssh:// or https:// URL. tg_store_fetch takes
 * what it receives as it is: `toolgate pull` uses tg_store_fetch_into. */
int tg_store_push(tg_store *s, const char *url);
/* 0 when url is a remote push and fetch accept, TG_ERR_INVALID otherwise. */
int tg_store_check_url(const char *url);
int tg_store_fetch(tg_store *s, const char *url);

/* ---- pull with vetting (sync.c, docs/STORE.md "Replication with vetting") */
/* Caps on what one pull may bring (0 = no cap). */
typedef struct tg_store_fetch_limits {
	uint64_t max_objects;    /* objects in the pack (aborts the download) */
	uint64_t max_bytes;      /* bytes of the pack received (aborts the download) */
	size_t max_refs;         /* refs the remote advertises */
	unsigned max_versions;   /* versions new to this store, all tools together */
} tg_store_fetch_limits;

enum {
	TG_STORE_IN_SAME = 1,    /* same tip (or no history sent: an active ref only) */
	TG_STORE_IN_NEW,         /* the tool is new here */
	TG_STORE_IN_AHEAD,       /* the remote's history extends the local one */
	TG_STORE_IN_BEHIND,      /* the local history extends the remote's */
	TG_STORE_IN_DIVERGED,    /* both added versions above base_version */
	TG_STORE_IN_BAD          /* refused: problem says why */
};

/* One tool as fetched: commit ids in hex ("" = none). */
typedef struct tg_store_incoming {
	char tool[65];
	int relation;
	int has_tip, has_active;
	char remote_tip[41], local_tip[41], remote_active[41];
	unsigned remote_version, local_version, base_version, remote_active_version;
	char *problem;
	/* internal: the advertised ids; fetched = its tip was fetched into the
	 * private namespace (a tip equal to the local one is not fetched) */
	char adv_tip[41], adv_active[41];
	int fetched;
} tg_store_incoming;

/* A signed decision line read from a remote's review notes: the commit
 * the note is on (hex), the line as it is (a claim, checked by the
 * registry), and the host id of the refs/toolgate-review/<id> it came from. */
#define TG_STORE_MAX_REVIEW_REFS 64
#define TG_STORE_MAX_DECISIONS 2048
#define TG_STORE_DECISION_PREFIX "signed decision: "
typedef struct tg_store_decision {
	char commit[41];
	char from[17];
	char *line;
} tg_store_decision;

typedef struct tg_store_fetched {
	char ns[96];                  /* the private refs: <ns>tools/<name> */
	size_t n;
	tg_store_incoming *items;
	tg_store_problem_list refused; /* refs refused by name or target */
	size_t nreview;               /* the remote's refs/toolgate-review/<id> */
	struct { char id[17]; char adv[41]; } review[TG_STORE_MAX_REVIEW_REFS];
	size_t ndecisions;
	tg_store_decision *decisions;
} tg_store_fetched;

/* Fetch the remote's refs/tools/<name> and refs/active/<name> into a
 * private namespace, nothing else; each chain checked (as verify, plus
 * regular files only and blob sizes from object headers). A broken cap is
 * TG_ERR_LIMIT naming it, with no ref changed. */
int tg_store_fetch_into(tg_store_fetched **out, tg_store *s, const char *url,
			const tg_store_fetch_limits *lim);
/* Remove the private refs and free. */
void tg_store_fetched_free(tg_store *s, tg_store_fetched *f);
/* Version v of the chain whose tip is the commit tip (hex). */
int tg_store_version_at(tg_store_version **out, tg_store *s, const char *tool, const char *tip,
			unsigned v);
/* One regular file of a commit (hex). */
int tg_store_get_file_at(char **out, size_t *len_out, tg_store *s, const char *commit,
			 const char *path);
/* refs/tools/<tool> from old_tip ("" = absent) to new_tip by
 * compare-and-swap; TG_ERR_CONFLICT when it moved meanwhile. */
int tg_store_adopt(tg_store *s, const char *tool, const char *new_tip, const char *old_tip,
		   const char *msg);
/* refs/active/<tool> from old ("" = absent) to commit, compare-and-swap. */
int tg_store_adopt_active(tg_store *s, const char *tool, const char *commit, const char *old,
			  const char *msg);
/* Copy the versions above base of the chain local_tip onto the commit
 * onto, renumbered after it; *out_tip = the new tip (no ref moved). */
int tg_store_rebase(char out_tip[41], tg_store *s, const char *tool, const char *onto,
		    const char *local_tip, unsigned base);
/* This host's own record about a commit (refs/notes/toolgate-local, never
 * pushed or fetched). get: 0 with *out NULL when there is none. */
int tg_store_note_set(tg_store *s, const char *commit, const char *text);
int tg_store_note_get(char **out, tg_store *s, const char *commit);
/* Append one line (no control characters, at most 1024 bytes) to the note
 * on commit under refs/notes/toolgate-review: a record of what people did
 * to a version, for `git notes --ref=toolgate-review show COMMIT`. Appended,
 * never rewritten; this host never reads it back (push carries it, and
 * other hosts' pulls read only its signed decision lines: review_carry.c). */
int tg_store_review_note(tg_store *s, const char *commit, const char *line);

/* ---- signed commits (sign.c, docs/STORE.md "Signed verdicts") */
/* Sign every commit this handle writes from now on with the private SSH
 * key at key_path (`ssh-keygen -Y sign -n git`, gpgsig header); NULL stops. */
int tg_store_set_signing_key(tg_store *s, const char *key_path);
/* An existing key a host names (config.json signing_key): an absolute
 * path to a regular file, not writable or readable by group or others, one
 * ssh-ed25519 key in OpenSSH format without a passphrase, key_path.pub the
 * same public key. TG_ERR_UNAVAILABLE "signing key: PATH: why" otherwise. */
int tg_store_check_signing_key(const char *key_path);
/* A new ed25519 key pair at key_path (+ ".pub"), no passphrase, mode 0600;
 * TG_ERR_EXISTS when key_path exists (never overwritten). */
int tg_store_keygen(const char *key_path, const char *comment);

enum {
	TG_STORE_SIG_NONE = 0,   /* unsigned */
	TG_STORE_SIG_GOOD,       /* verified for principal */
	TG_STORE_SIG_UNTRUSTED,  /* valid for its own key, which is not trusted here */
	TG_STORE_SIG_BAD         /* does not match the commit, or not an SSH signature */
};
typedef struct tg_store_sig {
	int state;
	char principal[128];     /* GOOD: the allowed-signers principal */
	char key[128];           /* GOOD, UNTRUSTED: "SHA256:..." of the signing key */
	char why[300];           /* UNTRUSTED, BAD: one line */
} tg_store_sig;
/* Check the signature of a commit (hex) against an allowed-signers file
 * (NULL or missing: nothing is trusted). 0 with *out filled; negative only
 * when the check could not run (no ssh-keygen, ...). */
int tg_store_commit_signature(tg_store_sig *out, tg_store *s, const char *commit,
			      const char *allowed_signers);
const char *tg_store_sig_name(int state);
/* Sign data with this handle's signing key in namespace ns (`ssh-keygen
 * -Y sign -n NS`): *out = the armored signature. TG_ERR_NOTFOUND when the
 * handle has no key. */
int tg_store_sign_data(char **out, tg_store *s, const char *ns, const char *data, size_t len);
/* Check an armored signature over data in namespace ns against an
 * allowed-signers file, as tg_store_commit_signature does for a commit. */
int tg_store_data_signature(tg_store_sig *out, const char *ns, const char *data, size_t len,
			    const char *sig, const char *allowed_signers);
/* "SHA256:..." of the public key file at pub_path (ssh-keygen -l). */
int tg_store_key_fingerprint(char *out, size_t size, const char *pub_path);

/* A cheap fingerprint of the ref state of the bare repository at path,
 * computed without libgit2 (plain stat calls, no git_libgit2_init): the
 * hex SHA-256 of the sorted (name, inode, size, mtime, ctime) of every file
 * under refs/tools/ and refs/active/ and of packed-refs, with the content of
 * files changed in the last 2 seconds. Any ref update by libgit2 or git
 * changes it; reads do not. Returns 0 with out = 64 hex digits; 1 with out =
 * TG_STORE_FINGERPRINT_CHANGED when no cheap answer exists (over 100000
 * entries, a symlink, a file changing while read...): treat the store as
 * changed and never record that value; negative on error (TG_ERR_NOTFOUND
 * when path does not exist). Soundness and limits: docs/STORE.md. */
#define TG_STORE_FINGERPRINT_CHANGED "changed"
int tg_store_fingerprint(char out[65], const char *path);

/* Upkeep (pack.c): loose objects (files under objects/XX/) and packs,
 * counted from the folders. */
int tg_store_object_counts(tg_store *s, size_t *loose, size_t *packs);
/* Pack every object into one new pack (packbuilder), then remove the loose
 * files of the objects it holds and the packs it replaced; and the loose
 * ref files into packed-refs, as `git pack-refs --all` does (the refs keep
 * their values, reflogs are untouched; toolgate's ref writers are held off
 * meanwhile). History is untouched; unreachable objects are kept (packed).
 * busy = 1 when another process was packing (nothing done). */
typedef struct tg_store_pack_stats {
	size_t loose_before, packs_before, loose_after, packs_after;
	size_t refs_before, refs_after; /* loose ref files */
	size_t objects, loose_removed;
	int busy;
	char pack[64];
} tg_store_pack_stats;
int tg_store_pack(tg_store *s, tg_store_pack_stats *out);

/* Value of a trailer of a version (NULL when absent). */
const char *tg_store_version_trailer(const tg_store_version *v, const char *key);
void tg_store_version_free(tg_store_version *v);
void tg_store_version_list_free(tg_store_version_list *l);
void tg_store_problem_list_free(tg_store_problem_list *l);

#endif
