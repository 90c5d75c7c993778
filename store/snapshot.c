/*
 * store/snapshot.c: the refs of a store read in one pass, for a caller that
 * is about to look up every tool's refs (`toolgate verify`). Without it each
 * lookup by name (git_reference_name_to_id) stats packed-refs and the loose
 * ref file, then opens and reads it: at 2,000 tools a verify made ~40,000 of
 * these system calls for refs alone, and one git_note_read per version
 * re-resolved the notes ref and re-read its tree. tg_store_snapshot_refs
 * reads every ref once, sorts them by name, and records which commits carry a note on
 * refs/notes/toolgate-local (one git_note_foreach); while it is held,
 * st_ref_id answers from it and tg_store_note_get skips commits without a
 * note. A symbolic ref is resolved once (one that does not resolve is left to
 * libgit2 at lookup time, so its error is the same as without a snapshot).
 * The refs are read with plain system calls relative to the folder's
 * descriptor (openat, read, close per loose ref; packed-refs once; about 3
 * µs a ref where libgit2's iterator, with five path-walking calls each, took
 * 7). A loose ref file whose content is not plainly 40 hex digits (a
 * symbolic ref, garbage) is kept by name and looked up through libgit2 when
 * asked, so it resolves or fails exactly as without a snapshot (and verify
 * reports one that does not resolve, where libgit2's iterator skipped it);
 * anything else this reader does not take as plainly valid (a symlink, a
 * name starting with a dot, a peeled or odd packed-refs line) makes it hand
 * the whole listing to libgit2's reference iterator instead.
 * The snapshot is the state at the time it was taken: every ref write of
 * this handle drops it first (st_ref_cas, active.c, the fetches), and
 * tg_store_snapshot_release ends it. When the listing fails (an unreadable
 * ref file) no snapshot is held and every lookup goes to libgit2 as before.
 */
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNAP_MAX_DEPTH 8
#define SNAP_MAX_PACKED (64u << 20)

struct snap_ref {
	char *name;
	git_oid id;
	int fallback; /* resolve through libgit2 at lookup time */
	int loose;    /* read from a loose file (wins over packed-refs) */
};

struct st_snapshot {
	size_t n;
	struct snap_ref *refs;  /* sorted by name */
	size_t nnoted;
	git_oid *noted;         /* sorted; commits with a local note */
	int notes_unknown;      /* the notes could not be listed: ask libgit2 */
};

static void snapshot_free(struct st_snapshot *sn)
{
	size_t i;

	if (!sn)
		return;
	for (i = 0; i < sn->n; i++)
		free(sn->refs[i].name);
	free(sn->refs);
	free(sn->noted);
	free(sn);
}

static int cmp_ref(const void *a, const void *b)
{
	return strcmp(((const struct snap_ref *)a)->name, ((const struct snap_ref *)b)->name);
}

static int cmp_oid(const void *a, const void *b)
{
	return memcmp(((const git_oid *)a)->id, ((const git_oid *)b)->id, GIT_OID_RAWSZ);
}

static int add_noted(const git_oid *blob_id, const git_oid *annotated, void *payload)
{
	struct st_snapshot *sn = payload;

	(void)blob_id;
	if (!(sn->nnoted & (sn->nnoted - 1)) || !sn->noted) {
		git_oid *nn = realloc(sn->noted, (sn->nnoted ? sn->nnoted * 2 : 16) * sizeof(*nn));
		if (!nn)
			return -1;
		sn->noted = nn;
	}
	git_oid_cpy(&sn->noted[sn->nnoted++], annotated);
	return 0;
}

/* One ref of the listing into the snapshot. */
static int add_ref(struct st_snapshot *sn, size_t *cap, git_reference *ref)
{
	git_reference *res = NULL;
	struct snap_ref *e;

	if (sn->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct snap_ref *nr = realloc(sn->refs, nc * sizeof(*nr));
		if (!nr)
			return -1;
		sn->refs = nr;
		*cap = nc;
	}
	e = &sn->refs[sn->n];
	memset(e, 0, sizeof(*e));
	if (!(e->name = strdup(git_reference_name(ref))))
		return -1;
	if (git_reference_type(ref) == GIT_REFERENCE_DIRECT && git_reference_target(ref)) {
		git_oid_cpy(&e->id, git_reference_target(ref));
	} else if (git_reference_resolve(&res, ref) == 0 && git_reference_target(res)) {
		git_oid_cpy(&e->id, git_reference_target(res));
	} else {
		e->fallback = 1;
		git_error_clear();
	}
	git_reference_free(res);
	sn->n++;
	return 0;
}

/* One ref: name and 40 hex digits (NULL: resolved by libgit2 at lookup
 * time). -1 out of memory. */
static int add_plain(struct st_snapshot *sn, size_t *cap, const char *name, const char *hex,
		     int loose)
{
	struct snap_ref *e;

	if (sn->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct snap_ref *nr = realloc(sn->refs, nc * sizeof(*nr));
		if (!nr)
			return -1;
		sn->refs = nr;
		*cap = nc;
	}
	e = &sn->refs[sn->n];
	memset(e, 0, sizeof(*e));
	if (!hex)
		e->fallback = 1;
	else if (git_oid_fromstr(&e->id, hex) < 0) /* hex: 40 digits and a NUL */
		return 1;
	if (!(e->name = strdup(name)))
		return -1;
	e->loose = loose;
	sn->n++;
	return 0;
}

static int is_hex40(const char *p)
{
	return strspn(p, "0123456789abcdef") >= GIT_OID_HEXSZ;
}

/* The loose refs under the folder fd (named prefix, "refs/..."): 0 read, 1
 * something to leave to libgit2, -1 out of memory. fd is closed. */
static int read_loose(struct st_snapshot *sn, size_t *cap, int fd, const char *prefix, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(fd);
		return 1;
	}
	while (rc == 0 && (de = readdir(d))) {
		const char *nm = de->d_name;
		char name[512], buf[64];
		unsigned char type = de->d_type;
		size_t nl = strlen(nm);
		ssize_t k;
		int f;

		if (!strcmp(nm, ".") || !strcmp(nm, ".."))
			continue;
		if (nl > 5 && !strcmp(nm + nl - 5, ".lock"))
			continue; /* a writer's lock file: libgit2 skips it too */
		if (nm[0] == '.' || (size_t)snprintf(name, sizeof(name), "%s/%s", prefix, nm) >= sizeof(name)) {
			rc = 1;
			break;
		}
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
				type = DT_LNK; /* vanished: leave it to libgit2 */
			else
				type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type == DT_DIR) {
			int sub = depth < SNAP_MAX_DEPTH
					  ? openat(dirfd(d), nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
					  : -1;
			rc = sub < 0 ? 1 : read_loose(sn, cap, sub, name, depth + 1);
			continue;
		}
		if (type != DT_REG) {
			rc = 1;
			break;
		}
		f = openat(dirfd(d), nm, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (f < 0) {
			rc = 1;
			break;
		}
		k = read(f, buf, sizeof(buf) - 1);
		close(f);
		/* exactly what libgit2 writes: 40 hex digits and a newline; any
		 * other content (a symbolic ref, garbage) is looked up through
		 * libgit2, which resolves it or fails as it would without us */
		if (k == GIT_OID_HEXSZ + 1 && buf[GIT_OID_HEXSZ] == '\n') {
			buf[GIT_OID_HEXSZ] = '\0';
			rc = add_plain(sn, cap, name, is_hex40(buf) ? buf : NULL, 1);
		} else {
			rc = add_plain(sn, cap, name, NULL, 1);
		}
	}
	closedir(d);
	return rc;
}

/* packed-refs: "<hex> <name>" lines after an optional "# pack-refs" header.
 * 0 read (or absent), 1 leave to libgit2, -1 out of memory. */
static int read_packed(struct st_snapshot *sn, size_t *cap, int repofd)
{
	_cleanup_close_ int fd = openat(repofd, "packed-refs", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;
	char *line, *next;
	int rc = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SNAP_MAX_PACKED)
		return 1;
	if (!(buf = malloc((size_t)st.st_size + 1)))
		return -1;
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
		if (k <= 0)
			return 1;
		got += (size_t)k;
	}
	buf[got] = '\0';
	for (line = buf; rc == 0 && *line; line = next) {
		char *nl = strchr(line, '\n');
		if (!nl)
			return 1; /* a last line without its newline: not what git writes */
		*nl = '\0';
		next = nl + 1;
		if (line == buf && !strncmp(line, "# pack-refs", 11))
			continue;
		if (!is_hex40(line) || line[GIT_OID_HEXSZ] != ' ' ||
		    strncmp(line + GIT_OID_HEXSZ + 1, "refs/", 5) != 0)
			return 1; /* a peeled tag ("^"), a comment, anything else */
		line[GIT_OID_HEXSZ] = '\0';
		rc = add_plain(sn, cap, line + GIT_OID_HEXSZ + 1, line, 0);
	}
	return rc;
}

/* Loose first, then packed: sorted by name, a loose ref hides the packed
 * one of the same name. 0, 1 (leave to libgit2), -1 out of memory. */
static int read_direct(struct st_snapshot *sn, tg_store *s)
{
	_cleanup_close_ int repofd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t cap = 0, i, w;
	int fd, rc;

	if (repofd < 0)
		return 1;
	fd = openat(repofd, "refs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 1;
	if ((rc = read_loose(sn, &cap, fd, "refs", 1)) != 0)
		return rc;
	if ((rc = read_packed(sn, &cap, repofd)) != 0)
		return rc;
	if (!sn->n)
		return 0;
	qsort(sn->refs, sn->n, sizeof(*sn->refs), cmp_ref);
	for (i = 1, w = 1; i < sn->n; i++) {
		struct snap_ref *prev = &sn->refs[w - 1];
		if (!strcmp(prev->name, sn->refs[i].name)) {
			if (sn->refs[i].loose) {
				free(prev->name);
				*prev = sn->refs[i];
			} else {
				free(sn->refs[i].name);
			}
			continue;
		}
		sn->refs[w++] = sn->refs[i];
	}
	sn->n = w;
	return 0;
}

static void snapshot_clear_refs(struct st_snapshot *sn)
{
	size_t i;

	for (i = 0; i < sn->n; i++)
		free(sn->refs[i].name);
	free(sn->refs);
	sn->refs = NULL;
	sn->n = 0;
}

int tg_store_snapshot_refs(tg_store *s)
{
	struct st_snapshot *sn;
	git_reference_iterator *it = NULL;
	git_reference *ref;
	size_t cap = 0;
	int rc;

	if (s->snap)
		return 0; /* held: still current (every ref write drops it) */
	if (!(sn = calloc(1, sizeof(*sn))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = read_direct(sn, s);
	if (rc < 0) {
		snapshot_free(sn);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc == 0)
		goto notes;
	snapshot_clear_refs(sn);
	if ((rc = git_reference_iterator_new(&it, s->repo)) < 0) {
		snapshot_free(sn);
		return st_git_fail(rc, "list refs");
	}
	while ((rc = git_reference_next(&ref, it)) == 0) {
		int arc = add_ref(sn, &cap, ref);
		git_reference_free(ref);
		if (arc < 0) {
			git_reference_iterator_free(it);
			snapshot_free(sn);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
	}
	git_reference_iterator_free(it);
	if (rc != GIT_ITEROVER) {
		/* an unreadable ref: no snapshot, lookups go to libgit2 (and
		 * tg_store_verify reports the ref) */
		snapshot_free(sn);
		git_error_clear();
		return 0;
	}
	if (sn->n)
		qsort(sn->refs, sn->n, sizeof(*sn->refs), cmp_ref);
notes:
	rc = git_note_foreach(s->repo, ST_LOCAL_NOTES_REF, add_noted, sn);
	if (rc == GIT_ENOTFOUND) {
		sn->nnoted = 0;
	} else if (rc < 0) {
		sn->notes_unknown = 1;
		git_error_clear();
	} else if (sn->nnoted) {
		qsort(sn->noted, sn->nnoted, sizeof(*sn->noted), cmp_oid);
	}
	s->snap = sn;
	return 0;
}

void tg_store_snapshot_release(tg_store *s)
{
	st_snapshot_drop(s);
}

void st_snapshot_drop(tg_store *s)
{
	if (!s || !s->snap)
		return;
	snapshot_free(s->snap);
	s->snap = NULL;
}

int st_ref_id(git_oid *out, tg_store *s, const char *name)
{
	struct snap_ref key, *e;

	if (!s->snap)
		return git_reference_name_to_id(out, s->repo, name);
	key.name = (char *)name;
	e = s->snap->n ? bsearch(&key, s->snap->refs, s->snap->n, sizeof(key), cmp_ref) : NULL;
	if (!e) {
		git_error_set_str(GIT_ERROR_REFERENCE, "reference not found");
		return GIT_ENOTFOUND;
	}
	if (e->fallback)
		return git_reference_name_to_id(out, s->repo, name);
	git_oid_cpy(out, &e->id);
	return 0;
}

int st_snapshot_may_have_note(tg_store *s, const git_oid *commit)
{
	if (!s->snap || s->snap->notes_unknown)
		return 1;
	return s->snap->nnoted &&
	       bsearch(commit, s->snap->noted, s->snap->nnoted, sizeof(*commit), cmp_oid) != NULL;
}

int st_snapshot_each(tg_store *s,
		     int (*fn)(tg_store_problem_list *l, tg_store *s, const char *name, const git_oid *id),
		     tg_store_problem_list *l)
{
	size_t i;
	int rc;

	for (i = 0; s->snap && i < s->snap->n; i++) {
		const struct snap_ref *e = &s->snap->refs[i];
		git_oid id;
		const git_oid *p = &e->id;
		if (e->fallback) /* as the iterator would: resolve it now */
			p = git_reference_name_to_id(&id, s->repo, e->name) == 0 ? &id : NULL;
		if ((rc = fn(l, s, e->name, p)) < 0)
			return rc;
	}
	return 0;
}

/* Tool names (refs/tools/<valid name>), sorted, from the snapshot. */
int st_snapshot_tools(char ***out, size_t *n_out, tg_store *s)
{
	size_t pl = strlen(ST_TOOLS_PREFIX), i, n = 0;
	char **names;

	*out = NULL;
	*n_out = 0;
	names = calloc(s->snap->n + 1, sizeof(*names));
	if (!names)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < s->snap->n; i++) {
		const char *name = s->snap->refs[i].name;
		if (strncmp(name, ST_TOOLS_PREFIX, pl) || !tg_name_valid(name + pl))
			continue;
		if (!(names[n] = strdup(name + pl))) {
			tg_store_free_names(names, n);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
		n++;
	}
	*out = names;
	*n_out = n;
	return 0;
}
