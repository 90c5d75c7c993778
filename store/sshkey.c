/*
 * store/sshkey.c: checking an existing SSH key before the store signs with
 * it (docs/STORE.md, "Signed verdicts"; config.json "signing_key"). The
 * file must be a regular file this user can read, neither writable nor
 * readable by group or others (ssh-keygen refuses a readable one anyway),
 * in OpenSSH's private key format ("openssh-key-v1": magic, cipher name,
 * KDF name and options, key count, then the public key blob, whose first
 * string is the key type) holding one ssh-ed25519 key without a
 * passphrase (signing is unattended), and KEY.pub beside it must hold the
 * same public key. The file is parsed here, nothing is run: a failure
 * names the key and what is wrong with it, "signing key: PATH: why"
 * (TG_ERR_UNAVAILABLE, exit 3: the environment, not the input, is wrong).
 */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define KEY_MAX_BYTES (64u * 1024u)
#define PRIV_BEGIN "-----BEGIN OPENSSH PRIVATE KEY-----"
#define PRIV_END "-----END OPENSSH PRIVATE KEY-----"
#define MAGIC "openssh-key-v1"

/* Decode base64 from text[0..len), skipping whitespace, stopping at '='.
 * Returns the decoded length, or -1 on a bad character or overflow. */
static long b64_decode(unsigned char *out, size_t cap, const char *text, size_t len)
{
	unsigned acc = 0, bits = 0;
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		int c = (unsigned char)text[i], v;
		if (c == '=')
			break;
		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if ((v = tg_base64_value(c)) < 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == cap)
				return -1;
			out[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return (long)n;
}

/* One SSH wire string at *p (uint32 length, bytes); advances *p. */
static int wire_string(const unsigned char **s, size_t *slen, const unsigned char **p,
		       const unsigned char *end)
{
	uint32_t l;

	if (end - *p < 4)
		return -1;
	l = (uint32_t)(*p)[0] << 24 | (uint32_t)(*p)[1] << 16 | (uint32_t)(*p)[2] << 8 | (*p)[3];
	*p += 4;
	if ((size_t)(end - *p) < l)
		return -1;
	*s = *p;
	*slen = l;
	*p += l;
	return 0;
}

static int bad(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const char *path, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return tg_error_set(TG_ERR_UNAVAILABLE, "signing key: %.300s: %s", path, why);
}

/* The file at path: regular, readable, not open to group or others. */
static int read_private(char **out, size_t *len, const char *path)
{
	struct stat st;
	int fd, rc;

	*out = NULL;
	if (stat(path, &st) < 0)
		return bad(path, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bad(path, "not a regular file");
	if (st.st_mode & 022)
		return bad(path, "writable by group or others (mode %04o): anyone could replace it",
			   (unsigned)(st.st_mode & 07777));
	if (st.st_mode & 044)
		return bad(path, "readable by group or others (mode %04o): ssh-keygen refuses it (chmod 600)",
			   (unsigned)(st.st_mode & 07777));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return bad(path, "cannot read it: %s", strerror(errno));
	rc = tg_fd_read_all(out, len, fd, KEY_MAX_BYTES);
	close(fd);
	if (rc < 0)
		return bad(path, "cannot read it: %s", tg_error_last()->message);
	return 0;
}

int tg_store_check_signing_key(const char *path)
{
	_cleanup_free_ char *text = NULL, *pubpath = NULL, *pub = NULL;
	_cleanup_free_ unsigned char *bin = NULL, *pbin = NULL;
	const unsigned char *p, *end, *cipher, *kdf, *kopt, *blob, *type, *ptype;
	size_t len = 0, plen = 0, cl, kl, ol, bl, tl, ptl;
	struct stat st;
	const char *body, *stop, *sp;
	long n, pn;
	int rc;

	if (!path || path[0] != '/')
		return bad(path ? path : "(none)", "not an absolute path");
	if ((rc = read_private(&text, &len, path)) < 0)
		return rc;
	if (strncmp(text, PRIV_BEGIN, strlen(PRIV_BEGIN)) != 0 ||
	    !(stop = strstr(text, PRIV_END)))
		return bad(path, "not an OpenSSH private key (ssh-keygen -t ed25519 makes one)");
	body = text + strlen(PRIV_BEGIN);
	if (!(bin = malloc(len)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	n = b64_decode(bin, len, body, (size_t)(stop - body));
	p = bin;
	end = bin + (n > 0 ? n : 0);
	if (n < (long)sizeof(MAGIC) || memcmp(bin, MAGIC, sizeof(MAGIC)) != 0)
		return bad(path, "not an OpenSSH private key (ssh-keygen -t ed25519 makes one)");
	p += sizeof(MAGIC); /* with its NUL */
	if (wire_string(&cipher, &cl, &p, end) < 0 || wire_string(&kdf, &kl, &p, end) < 0 ||
	    wire_string(&kopt, &ol, &p, end) < 0 || end - p < 4)
		return bad(path, "a damaged OpenSSH private key");
	if (p[0] || p[1] || p[2] || p[3] != 1)
		return bad(path, "holds more than one key");
	p += 4;
	if (wire_string(&blob, &bl, &p, end) < 0) /* the public key blob */
		return bad(path, "a damaged OpenSSH private key");
	p = blob;
	if (wire_string(&type, &tl, &p, blob + bl) < 0)
		return bad(path, "a damaged OpenSSH private key");
	if (tl != strlen("ssh-ed25519") || memcmp(type, "ssh-ed25519", tl) != 0)
		return bad(path, "a key of type %.*s, not ssh-ed25519", (int)(tl < 40 ? tl : 40), (const char *)type);
	if (cl != 4 || memcmp(cipher, "none", 4) != 0)
		return bad(path, "protected by a passphrase (signing is unattended: use a key without one)");
	(void)kdf;
	(void)kl;
	(void)kopt;
	(void)ol;
	/* KEY.pub beside it, the same public key */
	if (asprintf(&pubpath, "%s.pub", path) < 0) {
		pubpath = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (stat(pubpath, &st) < 0)
		return bad(pubpath, "%s", strerror(errno));
	if (tg_file_read(&pub, &plen, pubpath, KEY_MAX_BYTES) < 0)
		return bad(pubpath, "cannot read it: %s", tg_error_last()->message);
	if (strncmp(pub, "ssh-ed25519 ", 12) != 0)
		return bad(pubpath, "not an ssh-ed25519 public key");
	sp = pub + 12;
	if (!(pbin = malloc(plen)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	pn = b64_decode(pbin, plen, sp, strcspn(sp, " \r\n"));
	p = pbin;
	if (pn < 0 || wire_string(&ptype, &ptl, &p, pbin + pn) < 0 || (size_t)pn != bl ||
	    memcmp(pbin, blob, bl) != 0)
		return bad(pubpath, "not the public half of %s", path);
	(void)ptype;
	(void)ptl;
	return 0;
}
