/*
 * store/message.c: the commit message format of a version and the version
 * records built from commits. A message is
 *
 *     <subject>
 *
 *     Toolgate-Version: <N>
 *     <Key>: <value>
 *     ...
 *
 * which `git interpret-trailers --parse` reads the same way. Parsing takes
 * the last paragraph as the trailer block only when every line of it is a
 * "Key: value" line and it is not the subject paragraph.
 */
#include "store_internal.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>

int st_message_build(char **out, const char *subject, unsigned version,
		     const tg_store_trailer *trailers, size_t ntrailers)
{
	TG_CLEANUP(tg_buf_freep) tg_buf b = TG_BUF_INIT(0);
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = tg_buf_printf(&b, "%s\n\n%s: %u\n", subject, ST_VERSION_KEY, version)) < 0)
		return rc;
	for (i = 0; i < ntrailers; i++)
		if ((rc = tg_buf_printf(&b, "%s: %s\n", trailers[i].key, trailers[i].value)) < 0)
			return rc;
	*out = tg_buf_detach(&b, NULL);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

void st_trailers_free(tg_store_trailer *t, size_t n)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < n; i++) {
		free((char *)t[i].key);
		free((char *)t[i].value);
	}
	free(t);
}

/* Is line[0..len) "Key: value"? Sets the split points. */
static int parse_trailer_line(const char *line, size_t len, size_t *keylen, size_t *valstart)
{
	size_t i = 0;

	while (i < len && ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z') ||
			   (line[i] >= '0' && line[i] <= '9') || line[i] == '-'))
		i++;
	if (i == 0 || i >= len || line[i] != ':')
		return 0;
	*keylen = i;
	i++;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*valstart = i;
	return 1;
}

int st_message_parse(char **subject_out, tg_store_trailer **trailers_out, size_t *n_out,
		     const char *message)
{
	const char *end, *p, *para, *subj_end;
	tg_store_trailer *t = NULL;
	size_t n = 0, cap = 0;
	char *subject;

	*subject_out = NULL;
	*trailers_out = NULL;
	*n_out = 0;
	if (!message)
		message = "";
	subj_end = strchr(message, '\n');
	if (!subj_end)
		subj_end = message + strlen(message);
	subject = strndup(message, (size_t)(subj_end - message));
	if (!subject)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");

	/* The last paragraph: skip trailing newlines, find the last "\n\n". */
	end = message + strlen(message);
	while (end > message && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	para = NULL;
	for (p = end; p > message + 1; p--) {
		if (p[-1] == '\n' && p[-2] == '\n') {
			para = p;
			break;
		}
	}
	if (para && para > subj_end) {
		const char *line = para;
		int ok = 1;
		/* First pass: every line a trailer? */
		while (line < end) {
			const char *nl = memchr(line, '\n', (size_t)(end - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
			size_t kl, vs;
			if (!parse_trailer_line(line, len, &kl, &vs)) {
				ok = 0;
				break;
			}
			line = nl ? nl + 1 : end;
		}
		line = para;
		while (ok && line < end) {
			const char *nl = memchr(line, '\n', (size_t)(end - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
			size_t kl = 0, vs = 0, vl;
			parse_trailer_line(line, len, &kl, &vs);
			vl = len - vs;
			while (vl && (line[vs + vl - 1] == ' ' || line[vs + vl - 1] == '\t' ||
				      line[vs + vl - 1] == '\r'))
				vl--;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 8;
				tg_store_trailer *nt = realloc(t, nc * sizeof(*nt));
				if (!nt)
					goto oom;
				t = nt;
				cap = nc;
			}
			t[n].key = strndup(line, kl);
			t[n].value = strndup(line + vs, vl);
			n++;
			if (!t[n - 1].key || !t[n - 1].value)
				goto oom;
			line = nl ? nl + 1 : end;
		}
	}
	*subject_out = subject;
	*trailers_out = t;
	*n_out = n;
	return 0;
oom:
	free(subject);
	st_trailers_free(t, n);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}

static int parse_version(unsigned *out, const char *v)
{
	unsigned long long x = 0;
	size_t i;

	if (!v[0] || v[0] == '0' || strlen(v) > 9)
		return -1;
	for (i = 0; v[i]; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (unsigned)(v[i] - '0');
	}
	*out = (unsigned)x;
	return 0;
}

/* The version of a commit, remembered by commit id for the process: a
 * commit id is the hash of the message, so the answer never changes, and a
 * verify asks it of each commit four or five times (re-index, chain, active
 * pointer). Open addressing, at most VMEMO_SIZE / 2 entries (then no more
 * are kept); only valid versions are kept. */
#define VMEMO_SIZE 32768u
static struct vmemo {
	unsigned char id[GIT_OID_RAWSZ];
	unsigned v; /* 0 = free */
} *vmemo;
static size_t vmemo_n;
static pthread_mutex_t vmemo_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t vmemo_slot(const unsigned char *id)
{
	size_t h;

	memcpy(&h, id, sizeof(h));
	return h & (VMEMO_SIZE - 1);
}

static unsigned vmemo_get(const git_oid *oid)
{
	unsigned v = 0;
	size_t i;

	pthread_mutex_lock(&vmemo_mu);
	for (i = vmemo ? vmemo_slot(oid->id) : 0; vmemo && vmemo[i].v; i = (i + 1) & (VMEMO_SIZE - 1)) {
		if (!memcmp(vmemo[i].id, oid->id, GIT_OID_RAWSZ)) {
			v = vmemo[i].v;
			break;
		}
	}
	pthread_mutex_unlock(&vmemo_mu);
	return v;
}

static void vmemo_put(const git_oid *oid, unsigned v)
{
	size_t i;

	pthread_mutex_lock(&vmemo_mu);
	if (!vmemo)
		vmemo = calloc(VMEMO_SIZE, sizeof(*vmemo));
	if (vmemo && vmemo_n < VMEMO_SIZE / 2) {
		for (i = vmemo_slot(oid->id); vmemo[i].v; i = (i + 1) & (VMEMO_SIZE - 1))
			if (!memcmp(vmemo[i].id, oid->id, GIT_OID_RAWSZ))
				goto out;
		memcpy(vmemo[i].id, oid->id, GIT_OID_RAWSZ);
		vmemo[i].v = v;
		vmemo_n++;
	}
out:
	pthread_mutex_unlock(&vmemo_mu);
}

int st_commit_version(unsigned *out, const git_commit *c)
{
	_cleanup_free_ char *subject = NULL;
	tg_store_trailer *t = NULL;
	size_t n = 0, i;
	int rc, found = 0;
	unsigned v = 0;

	*out = 0;
	if ((v = vmemo_get(git_commit_id(c))) != 0) {
		*out = v;
		return 0;
	}
	if ((rc = st_message_parse(&subject, &t, &n, git_commit_message(c))) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		if (!strcasecmp(t[i].key, ST_VERSION_KEY)) {
			if (found || parse_version(&v, t[i].value) < 0) {
				found = -1;
				break;
			}
			found = 1;
		}
	}
	st_trailers_free(t, n);
	if (found != 1) {
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
		return tg_error_set(TG_ERR_INVALID, "commit %s: %s %s trailer", hex,
				    found ? "malformed or repeated" : "no", ST_VERSION_KEY);
	}
	if (v)
		vmemo_put(git_commit_id(c), v);
	*out = v;
	return 0;
}

int st_version_from_commit(tg_store_version **out, const char *tool, const git_commit *c)
{
	tg_store_version *v;
	int rc;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = st_commit_version(&v->version, c)) < 0)
		goto fail;
	if ((rc = st_message_parse(&v->subject, &v->trailers, &v->ntrailers, git_commit_message(c))) < 0)
		goto fail;
	v->tool = strdup(tool);
	if (!v->tool) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	git_oid_tostr(v->commit, sizeof(v->commit), git_commit_id(c));
	v->time = (int64_t)git_commit_time(c);
	*out = v;
	return 0;
fail:
	tg_store_version_free(v);
	return rc;
}

const char *tg_store_version_trailer(const tg_store_version *v, const char *key)
{
	size_t i;

	if (!v || !key)
		return NULL;
	for (i = 0; i < v->ntrailers; i++)
		if (!strcasecmp(v->trailers[i].key, key))
			return v->trailers[i].value;
	return NULL;
}

static void version_clear(tg_store_version *v)
{
	free(v->tool);
	free(v->subject);
	st_trailers_free(v->trailers, v->ntrailers);
}

void tg_store_version_free(tg_store_version *v)
{
	if (!v)
		return;
	version_clear(v);
	free(v);
}

void tg_store_version_list_free(tg_store_version_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		version_clear(&l->items[i]);
	free(l->items);
	free(l);
}

void tg_store_problem_list_free(tg_store_problem_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	free(l);
}

void tg_store_free_names(char **names, size_t n)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
