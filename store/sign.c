/*
 * store/sign.c: signed commits (docs/STORE.md, "Signed verdicts"). A host
 * with a signing key signs every commit it writes the way git signs with
 * SSH: the unsigned commit bytes (git_commit_create_buffer) are signed by
 * `ssh-keygen -Y sign -n git -f KEY`, and the armored signature goes into
 * the commit's gpgsig header (git_commit_create_with_signature), so plain
 * `git verify-commit` with gpg.format=ssh and an allowed-signers file
 * checks it without toolgate. Checking a commit: the signature and the
 * signed bytes come back from git_commit_extract_signature; `ssh-keygen -Y
 * check-novalidate` says whether the signature matches the bytes at all
 * (bad otherwise), `-Y find-principals` whether its key is in the allowed
 * signers (untrusted otherwise) and `-Y verify` confirms it for that
 * principal (good). ssh-keygen runs by posix_spawnp on files in a private
 * temporary folder, never through a shell. A signature is a claim of the
 * signer ("this host vetted this version"), never a reason to skip this
 * host's own checks.
 */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define SIG_MAX_BYTES (16u * 1024u)
#define SIG_ARMOR "-----BEGIN SSH SIGNATURE-----"

extern char **environ;

typedef struct sig_dir {
	char path[256];
} sig_dir;

static int dir_make(sig_dir *d)
{
	const char *t = getenv("TMPDIR");

	snprintf(d->path, sizeof(d->path), "%s/tg_sig_XXXXXX", t && t[0] && strlen(t) < 200 ? t : "/tmp");
	if (!mkdtemp(d->path)) {
		d->path[0] = '\0';
		return tg_error_errno(TG_ERR_IO, errno, "signing: temporary folder");
	}
	return 0;
}

static void dir_file(char *out, size_t size, const sig_dir *d, const char *name)
{
	snprintf(out, size, "%s/%s", d->path, name);
}

static void dir_remove(sig_dir *d)
{
	static const char *const names[] = { "data", "data.sig", "out", "err" };
	char p[300];
	size_t i;

	if (!d->path[0])
		return;
	for (i = 0; i < TG_ARRAY_SIZE(names); i++) {
		dir_file(p, sizeof(p), d, names[i]);
		unlink(p);
	}
	rmdir(d->path);
	d->path[0] = '\0';
}

static int write_file(const sig_dir *d, const char *name, const char *data, size_t len)
{
	char p[300];
	ssize_t w;
	size_t off = 0;
	int fd;

	dir_file(p, sizeof(p), d, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "signing: write %s", name);
	while (off < len) {
		w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return tg_error_errno(TG_ERR_IO, errno, "signing: write %s", name);
		}
		off += (size_t)w;
	}
	if (close(fd) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "signing: write %s", name);
	return 0;
}

static int append_newline(const sig_dir *d, const char *name)
{
	char p[300];
	int fd, rc = 0;

	dir_file(p, sizeof(p), d, name);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || write(fd, "\n", 1) != 1)
		rc = tg_error_errno(TG_ERR_IO, errno, "signing: write %s", name);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int read_file(char **out, size_t *len, const sig_dir *d, const char *name)
{
	char p[300];

	dir_file(p, sizeof(p), d, name);
	return tg_file_read(out, len, p, SIG_MAX_BYTES);
}

/* First line of a file of the folder into buf ("" when none). */
static void first_line(char *buf, size_t size, const sig_dir *d, const char *name)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	buf[0] = '\0';
	if (read_file(&text, &len, d, name) < 0) {
		tg_error_clear();
		return;
	}
	text[strcspn(text, "\r\n")] = '\0';
	tg_str_printable(buf, size, text, size - 1);
}

/* Run ssh-keygen with argv (argv[0] = "ssh-keygen"), stdin from the file
 * named in (or /dev/null), stdout to "out", stderr to "err" of the folder.
 * Returns the exit status (0..255), or negative when it could not run. */
static int keygen_run(const sig_dir *d, char *const argv[], const char *in)
{
	posix_spawn_file_actions_t fa;
	char pin[300], pout[300], perr[300];
	pid_t pid;
	int st = 0, rc;

	if (in)
		dir_file(pin, sizeof(pin), d, in);
	else
		snprintf(pin, sizeof(pin), "/dev/null");
	dir_file(pout, sizeof(pout), d, "out");
	dir_file(perr, sizeof(perr), d, "err");
	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return tg_error_errno(TG_ERR_NOMEM, rc, "ssh-keygen");
	rc = posix_spawn_file_actions_addopen(&fa, 0, pin, O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, pout, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 2, perr, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!rc)
		rc = posix_spawnp(&pid, "ssh-keygen", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return tg_error_errno(TG_ERR_UNAVAILABLE, rc,
				      "ssh-keygen: cannot run it (install openssh-client)");
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return tg_error_errno(TG_ERR_INTERNAL, errno, "ssh-keygen: wait");
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return tg_error_set(TG_ERR_UNAVAILABLE, "ssh-keygen: cannot run it (install openssh-client)");
	if (!WIFEXITED(st))
		return tg_error_set(TG_ERR_INTERNAL, "ssh-keygen: killed by signal %d", WTERMSIG(st));
	return WEXITSTATUS(st);
}

int tg_store_set_signing_key(tg_store *s, const char *key_path)
{
	char *k = NULL;

	if (key_path && !(k = strdup(key_path)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	free(s->sign_key);
	s->sign_key = k;
	return 0;
}

int tg_store_keygen(const char *key_path, const char *comment)
{
	sig_dir d;
	char line[200];
	char *argv[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", (char *)comment, "-f",
			 (char *)key_path, NULL };
	int rc;

	if (access(key_path, F_OK) == 0)
		return tg_error_set(TG_ERR_EXISTS, "%s: a key is already there (not overwritten)", key_path);
	if ((rc = dir_make(&d)) < 0)
		return rc;
	rc = keygen_run(&d, argv, NULL);
	if (rc > 0) {
		first_line(line, sizeof(line), &d, "err");
		rc = tg_error_set(TG_ERR_IO, "ssh-keygen -t ed25519: exit %d: %s", rc, line);
	}
	dir_remove(&d);
	if (rc == 0 && chmod(key_path, 0600) < 0)
		rc = tg_error_errno(TG_ERR_IO, errno, "%s", key_path);
	return rc;
}

/* Sign data with the store's key: *out = the armored signature. */
static int sign_buffer(char **out, tg_store *s, const char *ns, const char *data, size_t len)
{
	char p[300], line[200];
	sig_dir d;
	size_t slen = 0;
	int rc;

	*out = NULL;
	if ((rc = dir_make(&d)) < 0)
		return rc;
	dir_file(p, sizeof(p), &d, "data");
	{
		char *argv[] = { "ssh-keygen", "-Y", "sign", "-n", (char *)ns, "-f", s->sign_key, p, NULL };
		if ((rc = write_file(&d, "data", data, len)) < 0 || (rc = keygen_run(&d, argv, NULL)) < 0)
			goto out;
	}
	if (rc > 0) {
		first_line(line, sizeof(line), &d, "err");
		rc = tg_error_set(TG_ERR_IO, "sign with %s: ssh-keygen exit %d: %s", s->sign_key, rc, line);
		goto out;
	}
	if ((rc = read_file(out, &slen, &d, "data.sig")) < 0)
		goto out;
	while (slen && ((*out)[slen - 1] == '\n' || (*out)[slen - 1] == '\r'))
		(*out)[--slen] = '\0'; /* the header's own newline ends it, as git writes it */
	if (strncmp(*out, SIG_ARMOR, strlen(SIG_ARMOR)) != 0) {
		free(*out);
		*out = NULL;
		rc = tg_error_set(TG_ERR_IO, "sign with %s: ssh-keygen wrote no SSH signature", s->sign_key);
	}
out:
	dir_remove(&d);
	return rc;
}

int st_commit_write(git_oid *out, tg_store *s, const git_signature *author,
		    const git_signature *committer, const char *msg, const git_tree *tree,
		    size_t nparents, const git_commit **parents)
{
	_cleanup_free_ char *sig = NULL;
	git_buf buf = { 0 };
	int rc;

	if (!s->sign_key)
		return git_commit_create(out, s->repo, NULL, author, committer, NULL, msg, tree, nparents,
					 parents);
	if ((rc = git_commit_create_buffer(&buf, s->repo, author, committer, NULL, msg, tree, nparents,
					   parents)) < 0)
		return rc;
	if ((rc = sign_buffer(&sig, s, "git", buf.ptr, buf.size)) < 0) {
		git_buf_dispose(&buf);
		git_error_set_str(GIT_ERROR_NONE, tg_error_last()->message);
		return GIT_EUSER;
	}
	rc = git_commit_create_with_signature(out, s->repo, buf.ptr, sig, "gpgsig");
	git_buf_dispose(&buf);
	return rc;
}

const char *tg_store_sig_name(int state)
{
	switch (state) {
	case TG_STORE_SIG_GOOD: return "good";
	case TG_STORE_SIG_UNTRUSTED: return "untrusted";
	case TG_STORE_SIG_BAD: return "bad";
	default: return "unsigned";
	}
}

/* "SHA256:..." out of ssh-keygen's "Good "git" signature ... key SHA256:..." */
static void key_of(char *out, size_t size, const char *line)
{
	const char *k = strstr(line, "SHA256:");

	snprintf(out, size, "%.*s", k ? (int)strcspn(k, " \t") : 0, k ? k : "");
}

/* The signature in "data.sig" of d over "data", in namespace ns: bad
 * (does not match what), untrusted (its key is not in allowed_signers,
 * named list in the answer) or good for a principal. */
static int check_sig(tg_store_sig *out, const sig_dir *d, const char *ns, const char *what,
		     const char *list, const char *allowed_signers)
{
	char line[200], sigp[300], allowed[4096];
	int rc;

	out->state = TG_STORE_SIG_BAD;
	dir_file(sigp, sizeof(sigp), d, "data.sig");
	{
		char *argv[] = { "ssh-keygen", "-Y", "check-novalidate", "-n", (char *)ns, "-s", sigp, NULL };
		if ((rc = keygen_run(d, argv, "data")) < 0)
			return rc;
	}
	if (rc != 0) {
		snprintf(out->why, sizeof(out->why),
			 "the signature does not match the %s (ssh-keygen -Y check-novalidate failed)", what);
		return 0;
	}
	first_line(line, sizeof(line), d, "out");
	key_of(out->key, sizeof(out->key), line);
	out->state = TG_STORE_SIG_UNTRUSTED;
	if (!allowed_signers || access(allowed_signers, R_OK) != 0) {
		snprintf(out->why, sizeof(out->why), "no %s on this host", list);
		return 0;
	}
	snprintf(allowed, sizeof(allowed), "%s", allowed_signers);
	{
		char *argv[] = { "ssh-keygen", "-Y", "find-principals", "-s", sigp, "-f", allowed, NULL };
		if ((rc = keygen_run(d, argv, NULL)) < 0)
			return rc;
	}
	first_line(out->principal, sizeof(out->principal), d, "out");
	if (rc != 0 || !out->principal[0]) {
		out->principal[0] = '\0';
		snprintf(out->why, sizeof(out->why), "key %s is not in the %s", out->key, list);
		return 0;
	}
	{
		char *argv[] = { "ssh-keygen", "-Y", "verify", "-f", allowed, "-I", out->principal,
				 "-n", (char *)ns, "-s", sigp, NULL };
		if ((rc = keygen_run(d, argv, "data")) < 0)
			return rc;
	}
	if (rc != 0) {
		first_line(line, sizeof(line), d, "err");
		snprintf(out->why, sizeof(out->why), "ssh-keygen -Y verify refused it for %.100s: %.120s",
			 out->principal, line);
		return 0;
	}
	out->state = TG_STORE_SIG_GOOD;
	return 0;
}

int tg_store_commit_signature(tg_store_sig *out, tg_store *s, const char *commit,
			      const char *allowed_signers)
{
	git_buf sig = { 0 }, data = { 0 };
	sig_dir d = { "" };
	git_oid id;
	int rc;

	memset(out, 0, sizeof(*out));
	if (git_oid_fromstr(&id, commit) < 0)
		return tg_error_set(TG_ERR_INVALID, "not a commit id: %.64s", commit);
	{
		/* the parsed commit (in libgit2's object cache after a verify or
		 * history walk) says whether there is a gpgsig header at all, the
		 * one extract_signature reads; only a signed commit's raw object
		 * is read again below */
		git_commit *c = NULL;
		git_buf f = { 0 };
		int hr = git_commit_lookup(&c, s->repo, &id) == 0 ? git_commit_header_field(&f, c, "gpgsig") : 0;
		git_buf_dispose(&f);
		git_commit_free(c);
		if (hr == GIT_ENOTFOUND) {
			git_error_set_str(GIT_ERROR_NONE, "");
			return 0;
		}
	}
	rc = git_commit_extract_signature(&sig, &data, s->repo, &id, NULL);
	if (rc == GIT_ENOTFOUND) {
		git_error_set_str(GIT_ERROR_NONE, "");
		return 0;
	}
	if (rc < 0)
		return st_git_fail(rc, "signature of %.12s", commit);
	out->state = TG_STORE_SIG_BAD;
	if (sig.size > SIG_MAX_BYTES || strncmp(sig.ptr, SIG_ARMOR, strlen(SIG_ARMOR)) != 0) {
		snprintf(out->why, sizeof(out->why), "not an SSH signature (gpgsig header)");
		rc = 0;
		goto out;
	}
	if ((rc = dir_make(&d)) < 0 || (rc = write_file(&d, "data", data.ptr, data.size)) < 0 ||
	    (rc = write_file(&d, "data.sig", sig.ptr, sig.size)) < 0 ||
	    (rc = append_newline(&d, "data.sig")) < 0)
		goto out;
	rc = check_sig(out, &d, "git", "commit", "trusted signers", allowed_signers);
out:
	dir_remove(&d);
	git_buf_dispose(&sig);
	git_buf_dispose(&data);
	return rc;
}

int tg_store_sign_data(char **out, tg_store *s, const char *ns, const char *data, size_t len)
{
	*out = NULL;
	if (!s->sign_key)
		return tg_error_set(TG_ERR_NOTFOUND, "no signing key");
	return sign_buffer(out, s, ns, data, len);
}

int tg_store_data_signature(tg_store_sig *out, const char *ns, const char *data, size_t len,
			    const char *sig, const char *allowed_signers)
{
	sig_dir d = { "" };
	int rc;

	memset(out, 0, sizeof(*out));
	if (strlen(sig) > SIG_MAX_BYTES || strncmp(sig, SIG_ARMOR, strlen(SIG_ARMOR)) != 0) {
		out->state = TG_STORE_SIG_BAD;
		snprintf(out->why, sizeof(out->why), "not an SSH signature");
		return 0;
	}
	if ((rc = dir_make(&d)) == 0 && (rc = write_file(&d, "data", data, len)) == 0 &&
	    (rc = write_file(&d, "data.sig", sig, strlen(sig))) == 0 &&
	    (rc = append_newline(&d, "data.sig")) == 0)
		rc = check_sig(out, &d, ns, "signed entry", "trusted approvers", allowed_signers);
	dir_remove(&d);
	return rc;
}

int tg_store_key_fingerprint(char *out, size_t size, const char *pub_path)
{
	char line[300];
	sig_dir d;
	char *argv[] = { "ssh-keygen", "-l", "-E", "sha256", "-f", (char *)pub_path, NULL };
	int rc;

	out[0] = '\0';
	if ((rc = dir_make(&d)) < 0)
		return rc;
	if ((rc = keygen_run(&d, argv, NULL)) > 0) {
		first_line(line, sizeof(line), &d, "err");
		rc = tg_error_set(TG_ERR_INVALID, "%s: ssh-keygen -l: %s", pub_path, line);
	} else if (rc == 0) {
		first_line(line, sizeof(line), &d, "out");
		key_of(out, size, line);
		if (!out[0])
			rc = tg_error_set(TG_ERR_INVALID, "%s: no key fingerprint", pub_path);
	}
	dir_remove(&d);
	return rc;
}
