/*
 * common/sha256.c: SHA-256 for content hashes of tool sources (the build
 * cache key), binaries and the hash chain of the audit log. The digest
 * itself is OpenSSL's (crypto.c, which loads libcrypto on first use; it
 * uses the CPU's SHA extensions where present: `toolgate verify` hashes
 * every audit entry and every version's tool.c); here are its hex forms and
 * tg_json_digest, the one digest of a JSON value (call bindings, request
 * digests, the args_sha256 of audit entries and replay journals).
 */
#include "common.h"

#include <string.h>

void tg_sha256_final_hex(tg_sha256 *s, char out[65])
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char d[32];
	int i;

	tg_sha256_final(s, d);
	for (i = 0; i < 32; i++) {
		out[2 * i] = hexd[d[i] >> 4];
		out[2 * i + 1] = hexd[d[i] & 15];
	}
	out[64] = '\0';
}

void tg_sha256_hex(char out[65], const void *data, size_t len)
{
	tg_sha256 s;

	tg_sha256_init(&s);
	tg_sha256_update(&s, data, len);
	tg_sha256_final_hex(&s, out);
}

int tg_json_digest(char out[65], const char *tag, const char *subject, const json_t *v)
{
	/* the flags of the stored digests: no JSON_ENSURE_ASCII (which the
	 * approval hash adds), no shortened reals (json_dumps, not tg_json_dump) */
	_cleanup_free_ char *canon = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	tg_sha256 s;

	tg_sha256_init(&s);
	if (tag) {
		tg_sha256_update(&s, tag, strlen(tag));
		tg_sha256_update(&s, "\n", 1);
		if (subject)
			tg_sha256_update(&s, subject, strlen(subject));
		tg_sha256_update(&s, "\n", 1);
	}
	if (canon)
		tg_sha256_update(&s, canon, strlen(canon));
	tg_sha256_final_hex(&s, out);
	if (v && !canon)
		return json_is_object(v) || json_is_array(v)
			       ? tg_error_set(TG_ERR_NOMEM, "out of memory")
			       : tg_error_set(TG_ERR_INVALID, "a digest of JSON that is not an "
							      "object or an array");
	return 0;
}
