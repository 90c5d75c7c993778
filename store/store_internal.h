/*
 * store/store_internal.h: what the files of store/ share and nobody else
 * sees: the handle, the limits, libgit2 error mapping, name and message
 * validation, the commit-message format (subject, blank line, trailers),
 * the lock discipline and the read helpers used by several files.
 */
#ifndef TG_STORE_INTERNAL_H
#define TG_STORE_INTERNAL_H

#include "store/store.h"

#include "git_dl.h"

/* Limits on what a caller (ultimately an agent) controls. */
#define ST_MAX_FILE_BYTES     (4u * 1024u * 1024u) /* per file */
#define ST_MAX_FILES          16u
#define ST_MAX_FILE_NAME      128u
#define ST_MAX_TRAILERS       32u
#define ST_MAX_TRAILER_KEY    64u
#define ST_MAX_TRAILER_VALUE  4096u
#define ST_MAX_SUBJECT        1024u
#define ST_MAX_AUTHOR         256u
/* Sizes a pulled commit and tree may have: a version's message holds at
 * most a subject and ST_MAX_TRAILERS trailers (and a signature), its tree
 * at most ST_MAX_FILES entries. */
#define ST_MAX_COMMIT_BYTES   (1u << 20)
#define ST_MAX_TREE_BYTES     (64u << 10)
/* A pull's fetch process (bounded.c): address space it may add to what it
 * inherits, and its time (TG_PULL_MAX_SECONDS may only lower it). */
#define ST_PULL_MEM_BYTES     (40ull << 20)
#define ST_PULL_SECONDS       300u
/* A ref .lock file older than this is taken as left by a crash. */
#define ST_STALE_LOCK_SECONDS 5
/* Compare-and-swap retries on a contended ref: bounded by count and by
 * time; the time bound is above ST_STALE_LOCK_SECONDS so that a writer
 * blocked by a lock a crashed process left behind outlives it and clears it. */
#define ST_CAS_MAX_TRIES      4000
#define ST_CAS_MAX_MS         20000u

#define ST_TOOLS_PREFIX  "refs/tools/"
#define ST_ACTIVE_PREFIX "refs/active/"
#define ST_FETCH_PREFIX  "refs/toolgate-fetch/"
#define ST_LOCAL_NOTES_REF "refs/notes/toolgate-local"
#define ST_REVIEW_NOTES_REF "refs/notes/toolgate-review"
/* a host's review notes on a remote: refs/toolgate-review/<16 hex digits> */
#define ST_REVIEW_REMOTE_PREFIX "refs/toolgate-review/"
/* a review note past this size takes no more lines (and is not read on pull) */
#define ST_MAX_REVIEW_NOTE  (256u * 1024u)
#define ST_MAX_REVIEW_LINE  1024u
#define ST_VERSION_KEY   "Toolgate-Version"
#define ST_LOCK_FILE     "toolgate.lock"

struct tg_store {
	git_repository *repo;
	char *path;     /* the repository folder */
	int lock_fd;    /* <path>/toolgate.lock, for flock(2) */
	char *sign_key; /* private SSH key signing every commit written, or NULL */
	struct st_snapshot *snap; /* refs read in one pass (snapshot.c), or NULL */
	char review_id[17]; /* push: the review notes go to refs/toolgate-review/<id> ("": not pushed) */
};

/* Map a libgit2 failure to a TG_ERR_* code with "what: libgit2 message". */
int st_git_fail(int gitcode, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Validation; each returns 0 or TG_ERR_INVALID/TG_ERR_LIMIT with a message. */
int st_check_tool(const char *tool);
int st_check_file_name(const char *name);
int st_check_trailer(const char *key, const char *value);
int st_check_line(const char *what, const char *s, size_t max, int allow_empty);

/* "refs/tools/<tool>" or "refs/active/<tool>" into buf (tool already valid). */
void st_ref_name(char *buf, size_t size, const char *prefix, const char *tool);

/* Commit messages: "<subject>\n\nToolgate-Version: N\n<Key>: <value>\n...". */
int st_message_build(char **out, const char *subject, unsigned version,
		     const tg_store_trailer *trailers, size_t ntrailers);
/* Parse a message into subject and trailers (the last paragraph when every
 * line of it is "Key: value" and it is not the subject). */
int st_message_parse(char **subject_out, tg_store_trailer **trailers_out, size_t *n_out,
		     const char *message);
/* The Toolgate-Version of a commit; TG_ERR_INVALID when absent/malformed. */
int st_commit_version(unsigned *out, const git_commit *c);
/* Fill a version record from a commit. */
int st_version_from_commit(tg_store_version **out, const char *tool, const git_commit *c);

/* The commit of version v of tool (walks the first-parent chain from the
 * tip); TG_ERR_NOTFOUND when there is no such tool or version. */
int st_lookup_version_commit(git_commit **out, tg_store *s, const char *tool, unsigned v);
/* The tip commit of a tool and its version; TG_ERR_NOTFOUND when absent. */
int st_lookup_tip(git_commit **out, unsigned *version_out, tg_store *s, const char *tool);

/* Shared flock held around ref updates; exclusive to clear stale locks. */
int st_lock_shared(tg_store *s);
/* Exclusive flock, retried without blocking until ST_CAS_MAX_MS after
 * start_ms (TG_ERR_CONFLICT then). */
int st_lock_exclusive(tg_store *s, uint64_t start_ms);
/* Loose ref files into packed-refs (packrefs.c): counts before and after. */
int st_pack_refs(tg_store *s, size_t *before, size_t *after);
void st_unlock(tg_store *s);
/* One compare-and-swap of ref name from old_id (NULL: the ref must be
 * absent) to new_id, under the shared flock; returns the libgit2 code
 * (GIT_EMODIFIED when the value was not old_id, GIT_ELOCKED when another
 * writer holds the ref's lock). The check runs under the ref's lock:
 * git_reference_create(force=0) is not used because libgit2 checks the
 * ref's absence before taking the lock, so two creators can both win. */
int st_ref_cas(tg_store *s, const char *name, const git_oid *new_id, const git_oid *old_id, const char *msg);
/* Remove stale ref .lock files (older than ST_STALE_LOCK_SECONDS) if no
 * toolgate writer holds the shared lock. Returns the number removed. */
int st_clear_stale_locks(tg_store *s);
/* Sleep a short, growing, randomized time before retry number attempt. */
void st_backoff(unsigned attempt);
/* May retry number attempt+1 of an operation started at start_ms follow? */
int st_may_retry(unsigned attempt, uint64_t start_ms);

/* The id a ref name resolves to: from the snapshot when one is held
 * (tg_store_snapshot_refs), else from libgit2; 0, GIT_ENOTFOUND or another
 * libgit2 error. */
int st_ref_id(git_oid *out, tg_store *s, const char *name);
/* 0 when the snapshot says commit has no note on the local notes ref, 1
 * when it may have one (or no snapshot is held). */
int st_snapshot_may_have_note(tg_store *s, const git_oid *commit);
/* fn(l, s, name, id) for every ref of the snapshot in name order (id NULL
 * when it does not resolve); stops at the first negative return. */
int st_snapshot_each(tg_store *s,
		     int (*fn)(tg_store_problem_list *l, tg_store *s, const char *name, const git_oid *id),
		     tg_store_problem_list *l);
/* review_carry.c: a remote's refs/toolgate-review/<id> taken into f (1),
 * refused by name (problem added, 1) or not such a ref (0). */
int st_review_take_ref(tg_store_fetched *f, const char *name, const git_oid *id);
/* The signed decision lines of the review notes of f's review refs, read
 * from repo under ref names prefix<id> (the remote itself, or the
 * quarantine's private namespace), bounded, into f->decisions. */
int st_review_read(tg_store_fetched *f, git_repository *repo, const char *prefix);
/* Forget the snapshot: every ref write calls this first. */
void st_snapshot_drop(tg_store *s);
/* tg_store_list_tools answered from the snapshot (held). */
int st_snapshot_tools(char ***out, size_t *n_out, tg_store *s);

/* Problems found by verify (capped at ST_MAX_PROBLEMS lines). */
#define ST_MAX_PROBLEMS 1000
int st_problem_add(tg_store_problem_list *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Check the first-parent chain of one tool from tip: versions tip..1 in
 * sequence, a root without parents, no merges, tool.json and tool.c in every
 * tree, every tree entry present. Adds to l; negative only on failure to run. */
int st_check_chain(tg_store_problem_list *l, tg_store *s, const char *what, const char *tool,
		   const git_oid *tip);
/* Is commit id version-consistent inside the chain of tool starting at tip?
 * 1 yes, 0 no (adds nothing), negative on failure to run. */
int st_chain_contains(tg_store *s, const git_oid *tip, const git_oid *id);

/* remote.c: a remote URL is a local path, or a file://, git://, ssh:// or
 * https:// URL (no scp-like host:path); an anonymous remote for it. */
int st_check_remote_url(const char *url);
int st_open_remote(git_remote **out, tg_store *s, const char *url);

/* sign.c: write a commit (as git_commit_create, no ref moved), signed
 * with the store's key (gpgsig header, `ssh-keygen -Y sign -n git`) when
 * one is set. */
int st_commit_write(git_oid *out, tg_store *s, const git_signature *author,
		    const git_signature *committer, const char *msg, const git_tree *tree,
		    size_t nparents, const git_commit **parents);

/* quarantine.c: a bare repository inside the store whose object database
 * has the store's as an alternate; a fetch lands there and is checked
 * there. view is a store handle on it (no lock file, no signing key). */
typedef struct st_quarantine {
	char *dir;
	int lock_fd;   /* <dir>/toolgate.lock, flocked for the quarantine's life */
	tg_store view;
} st_quarantine;
/* Make one, its refs seeded with the tips of the store's tool histories. */
int st_quarantine_open(st_quarantine **out, tg_store *s);
/* Pack the objects reachable from tips[i] and not from hide[i] (zero:
 * none) into <dir>/admit: name[] = the pack's name ("" when there was
 * nothing to pack). Writes nothing outside the quarantine. */
int st_quarantine_pack(char name[41], size_t *nobjects, st_quarantine *q, const git_oid *tips,
		       const git_oid *hide, size_t n);
/* Move the pack named name, then its index, from <dir>/admit into the store. */
int st_quarantine_move(st_quarantine *q, tg_store *s, const char *name);
/* Both, in this process. */
int st_quarantine_admit(size_t *nobjects, st_quarantine *q, tg_store *s, const git_oid *tips,
			const git_oid *hide, size_t n);
/* Remove the quarantine (NULL is fine). */
void st_quarantine_free(st_quarantine *q);
/* Remove quarantines whose owner died (at every open). */
void st_quarantine_sweep(const char *store);
/* pack.c: libgit2's temporary packs (objects/pack/pack_git2_*) of a packer
 * that died, removed when no packer holds toolgate-pack.lock. */
void st_pack_sweep(const char *store);

/* fetch_refs.c: take one advertised ref into f (a tool's tip or active
 * pointer) or refuse it by name. */
int st_fetch_take_ref(tg_store_fetched *f, const char *name, const git_oid *id);
/* fetch_refs.c: a new incoming entry for tool at the end of f's list. */
int st_fetched_add(tg_store_fetched *f, const char *tool, tg_store_incoming **out);
/* fetch_local.c: a pull from a path or file:// URL without libgit2's local
 * transport. st_local_path: the folder, or NULL for another URL. */
const char *st_local_path(const char *url);
int st_local_open(git_repository **out, const char *url);
/* The remote's refs by name and target (nothing peeled), at most max_refs. */
int st_local_list(tg_store_fetched *f, git_repository *rr, const char *url, size_t max_refs);
/* Refuse a tool whose new history has a commit, tree or blob over its cap
 * or a subtree (from object headers, before anything is copied). */
int st_local_precheck(tg_store *s, git_repository *rr, tg_store_fetched *f);
/* Copy the objects of the histories marked fetched into the quarantine q
 * and set its private refs <ns>tools/<name>. */
int st_local_copy(tg_store *q, tg_store *s, git_repository *rr, tg_store_fetched *f,
		  const tg_store_fetch_limits *lim, const char *url);

/* bounded.c: run child(fd, arg) in a forked process whose address space
 * may grow by mem_bytes over what it inherits, for at most seconds (then
 * killed); it sends frames with st_frame_send, each handed to
 * frame(arg, type, payload, n) in the parent (payload NUL-terminated; the
 * types 'D', 'E' and 'M' are the runner's). 0 when the child finished its
 * work; its error, or TG_ERR_LIMIT naming the limit it broke, otherwise. */
typedef struct st_bounded {
	uint64_t mem_bytes;
	unsigned seconds;
	int (*child)(int fd, void *arg);
	int (*frame)(void *arg, int type, const char *payload, size_t n);
	void *arg;
} st_bounded;
int st_bounded_run(const st_bounded *b, const char *what);
int st_frame_send(int fd, int type, const void *p, size_t n);

/* Free an array of trailers. */
void st_trailers_free(tg_store_trailer *t, size_t n);

#endif
