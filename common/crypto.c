/*
 * common/crypto.c: OpenSSL's libcrypto, loaded with dlopen() on first use
 * (as libgit2 and libclang are), so that commands which hash nothing
 * (`--version`, help, `sandbox exec`, `check`) do not pay for relocating
 * it at start-up: it is most of the dynamic loader's work. The table below
 * is the only place that names libcrypto's functions; sha256.c hashes
 * through it and the wrappers here give the registry HMAC-SHA256, base64,
 * a constant-time compare and a cleanse without its own copy of OpenSSL.
 * A process that forks without exec and then hashes (serve's HTTP
 * workers) loads it before it forks: tg_crypto_load() is idempotent.
 * libcrypto is a dependency of the package: when it cannot be loaded, a
 * hash cannot be computed and toolgate stops (tg_crypto_need, exit 3).
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "common.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct evp_md_st;

#define TG_CRYPTO_FUNCTIONS(X)                                                                   \
	X(SHA256_Init, int, (SHA256_CTX *))                                                      \
	X(SHA256_Update, int, (SHA256_CTX *, const void *, size_t))                              \
	X(SHA256_Final, int, (unsigned char *, SHA256_CTX *))                                    \
	X(EVP_sha256, const struct evp_md_st *, (void))                                          \
	X(HMAC, unsigned char *,                                                                 \
	  (const struct evp_md_st *, const void *, int, const unsigned char *, size_t,          \
	   unsigned char *, unsigned int *))                                                     \
	X(EVP_EncodeBlock, int, (unsigned char *, const unsigned char *, int))                   \
	X(EVP_DecodeBlock, int, (unsigned char *, const unsigned char *, int))                   \
	X(OPENSSL_cleanse, void, (void *, size_t))                                               \
	X(CRYPTO_memcmp, int, (const void *, const void *, size_t))

static struct {
#define TG_CRYPTO_SLOT(name, ret, args) ret(*name) args;
	TG_CRYPTO_FUNCTIONS(TG_CRYPTO_SLOT)
#undef TG_CRYPTO_SLOT
} api;

#define TG_DL_NAME(name, ret, args) #name,
#define TG_DL_SLOT(name, ret, args) (void **)&api.name,
static const char *const names[] = { TG_CRYPTO_FUNCTIONS(TG_DL_NAME) };
static void **const slots[] = { TG_CRYPTO_FUNCTIONS(TG_DL_SLOT) };
#undef TG_DL_NAME
#undef TG_DL_SLOT

static tg_dl_lib lib = TG_DL_LIB("libcrypto", TG_LIBCRYPTO_SONAME, NULL, names, slots);

int tg_crypto_load(void)
{
	return tg_dl_need(&lib);
}

/* A hash that cannot be computed cannot be answered with a guess: the
 * audit chain, content hashes and approvals depend on it. */
static void need(void)
{
	if (tg_dl_need(&lib) < 0) {
		fprintf(stderr, "toolgate: %s\n", tg_error_last()->message);
		exit(3);
	}
}

void tg_sha256_init(tg_sha256 *s)
{
	_Static_assert(sizeof(SHA256_CTX) <= sizeof(s->ctx), "tg_sha256 must hold SHA256_CTX");
	_Static_assert(_Alignof(SHA256_CTX) <= _Alignof(tg_sha256), "tg_sha256 alignment");
	need();
	api.SHA256_Init((SHA256_CTX *)(void *)s->ctx);
}

void tg_sha256_update(tg_sha256 *s, const void *data, size_t len)
{
	if (len)
		api.SHA256_Update((SHA256_CTX *)(void *)s->ctx, data, len);
}

void tg_sha256_final(tg_sha256 *s, unsigned char out[32])
{
	api.SHA256_Final(out, (SHA256_CTX *)(void *)s->ctx);
}

int tg_hmac_sha256(unsigned char out[32], const void *key, size_t key_len, const void *data,
		   size_t len)
{
	unsigned int n = 0;
	int rc;

	if ((rc = tg_crypto_load()) < 0)
		return rc;
	if (key_len > INT32_MAX ||
	    !api.HMAC(api.EVP_sha256(), key, (int)key_len, data, len, out, &n) || n != 32)
		return tg_error_set(TG_ERR_INTERNAL, "HMAC-SHA256 failed");
	return 0;
}

int tg_base64_encode(char *out, const void *in, size_t len)
{
	int rc;

	if ((rc = tg_crypto_load()) < 0)
		return rc;
	if (len > INT32_MAX / 4 * 3)
		return tg_error_set(TG_ERR_LIMIT, "base64: input too large");
	return api.EVP_EncodeBlock((unsigned char *)out, in, (int)len);
}

int tg_base64_decode(unsigned char *out, const char *in, size_t len)
{
	int rc, n;

	if ((rc = tg_crypto_load()) < 0)
		return rc;
	if (len > INT32_MAX)
		return tg_error_set(TG_ERR_LIMIT, "base64: input too large");
	n = api.EVP_DecodeBlock(out, (const unsigned char *)in, (int)len);
	return n < 0 ? tg_error_set(TG_ERR_INVALID, "base64: undecodable") : n;
}

int tg_memeq_secret(const void *a, const void *b, size_t len)
{
	need();
	return api.CRYPTO_memcmp(a, b, len) == 0;
}

void tg_cleanse(void *p, size_t len)
{
	need();
	api.OPENSSL_cleanse(p, len);
}
