/*
 * common/sha256.c: SHA-256 (FIPS 180-4), used for content hashes of tool
 * sources (the build cache key) and for the hash chain of the audit log.
 * On x86-64 CPUs with the SHA extensions (cpuid leaf 7, EBX bit 29) the
 * block function uses the sha256rnds2/msg1/msg2 instructions (about five
 * times faster: `toolgate verify` hashes every audit entry and every
 * version's tool.c); elsewhere the portable C version. Both give the same
 * digests (tests/common: FIPS vectors, every split of a message, both paths).
 */
#include "common.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TG_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress_c(tg_sha256 *s, const unsigned char *blk)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
		       (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

#ifdef TG_SHA_NI
/* n blocks at p into h. The state is kept as the instructions want it:
 * st0 = (A, B, E, F), st1 = (C, D, G, H), highest lane first. */
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_ni(uint32_t h[8], const unsigned char *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
	__m128i st0, st1, t, save0, save1, m[16], wk;
	int i;

	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);
	st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);
	st0 = _mm_alignr_epi8(t, st1, 8);
	st1 = _mm_blend_epi16(st1, t, 0xF0);
	for (; n > 0; n--, p += 64) {
		save0 = st0;
		save1 = st1;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
		for (i = 0; i < 16; i++) {
			if (i < 4)
				m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)),
							bswap);
			else
				m[i] = _mm_sha256msg2_epu32(
					_mm_add_epi32(_mm_sha256msg1_epu32(m[i - 4], m[i - 3]),
						      _mm_alignr_epi8(m[i - 1], m[i - 2], 4)),
					m[i - 1]);
			wk = _mm_add_epi32(m[i], _mm_loadu_si128((const __m128i *)&K[4 * i]));
			st1 = _mm_sha256rnds2_epu32(st1, st0, wk);
			st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(wk, 0x0E));
		}
		st0 = _mm_add_epi32(st0, save0);
		st1 = _mm_add_epi32(st1, save1);
	}
	t = _mm_shuffle_epi32(st0, 0x1B);
	st1 = _mm_shuffle_epi32(st1, 0xB1);
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, st1, 0xF0));
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(st1, t, 8));
}

/* 1 SHA extensions, 0 portable, -1 not yet asked (cpuid once). */
static int sha_ni = -1;

static int have_sha_ni(void)
{
	int v = __atomic_load_n(&sha_ni, __ATOMIC_RELAXED);
	unsigned a, b, c, d;

	if (v >= 0)
		return v;
	v = 0;
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
	    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)))
		v = 1;
	__atomic_store_n(&sha_ni, v, __ATOMIC_RELAXED);
	return v;
}
#endif

void tg_sha256_portable(int on)
{
#ifdef TG_SHA_NI
	__atomic_store_n(&sha_ni, on ? 0 : -1, __ATOMIC_RELAXED);
#else
	(void)on;
#endif
}

/* n whole blocks at p. */
static void compress(tg_sha256 *s, const unsigned char *p, size_t n)
{
#ifdef TG_SHA_NI
	if (have_sha_ni()) {
		compress_ni(s->h, p, n);
		return;
	}
#endif
	for (; n > 0; n--, p += 64)
		compress_c(s, p);
}

void tg_sha256_init(tg_sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, iv, sizeof(iv));
	s->total = 0;
	s->used = 0;
}

void tg_sha256_update(tg_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->total += len;
	if (s->used) {
		size_t n = 64 - s->used;
		if (n > len)
			n = len;
		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used < 64)
			return;
		compress(s, s->block, 1);
		s->used = 0;
	}
	if (len >= 64) {
		/* whole blocks straight from the input */
		compress(s, p, len / 64);
		p += len & ~(size_t)63;
		len &= 63;
	}
	if (len) {
		memcpy(s->block, p, len);
		s->used = len;
	}
}

void tg_sha256_final(tg_sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->total * 8;
	int i;

	/* 0x80, zeros up to 56 bytes into a block, the length in bits */
	s->block[s->used++] = 0x80;
	if (s->used > 56) {
		memset(s->block + s->used, 0, 64 - s->used);
		compress(s, s->block, 1);
		s->used = 0;
	}
	memset(s->block + s->used, 0, 56 - s->used);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	compress(s, s->block, 1);
	s->used = 0;
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

void tg_sha256_final_hex(tg_sha256 *s, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[32];
	int i;

	tg_sha256_final(s, d);
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
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
