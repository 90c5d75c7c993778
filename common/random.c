/*
 * common/random.c: random bytes from the kernel (getrandom, blocking until
 * the pool is initialised, retried on EINTR and on short reads), raw or as
 * lowercase hex: session ids, bearer tokens, the request-state key.
 */
#include "common.h"

#include <errno.h>
#include <sys/random.h>

int tg_random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t k = getrandom(p + got, n - got, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "getrandom");
		}
		got += (size_t)k;
	}
	return 0;
}

int tg_random_hex(char *out, size_t nbytes)
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char raw[64];
	size_t done = 0, i;
	int r;

	while (done < nbytes) {
		size_t k = nbytes - done < sizeof(raw) ? nbytes - done : sizeof(raw);
		if ((r = tg_random_bytes(raw, k)) < 0) {
			out[0] = '\0';
			return r;
		}
		for (i = 0; i < k; i++) {
			out[2 * (done + i)] = hexd[raw[i] >> 4];
			out[2 * (done + i) + 1] = hexd[raw[i] & 15];
		}
		done += k;
	}
	out[2 * nbytes] = '\0';
	return 0;
}
