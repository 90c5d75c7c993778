/*
 * common/buf.c: bounded growable byte buffers. Every buffer that holds data
 * an attacker controls (tool output, source, messages) has a maximum, and
 * appending past it fails with TG_ERR_LIMIT instead of growing.
 */
#include "common.h"

#include <string.h>

#define TG_BUF_DEFAULT_MAX ((size_t)1 << 30)

void tg_buf_init(tg_buf *b, size_t max)
{
	b->ptr = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

static size_t buf_max(const tg_buf *b)
{
	return b->max ? b->max : TG_BUF_DEFAULT_MAX;
}

static int buf_reserve(tg_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > buf_max(b) - b->len)
		return tg_error_set(TG_ERR_LIMIT, "buffer limit of %zu bytes exceeded", buf_max(b));
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->ptr, cap);
	if (!p)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	b->ptr = p;
	b->cap = cap;
	return 0;
}

int tg_buf_append(tg_buf *b, const void *data, size_t len)
{
	int r = buf_reserve(b, len);
	if (r < 0)
		return r;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int tg_buf_puts(tg_buf *b, const char *s)
{
	return tg_buf_append(b, s, strlen(s));
}

int tg_buf_printf(tg_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return tg_error_set(TG_ERR_INTERNAL, "bad format");
	r = buf_reserve(b, (size_t)n);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void tg_buf_clear(tg_buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

char *tg_buf_detach(tg_buf *b, size_t *len_out)
{
	char *p = b->ptr;
	if (!p)
		p = calloc(1, 1);
	if (len_out)
		*len_out = b->len;
	b->ptr = NULL;
	b->len = 0;
	b->cap = 0;
	return p;
}

void tg_buf_free(tg_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = 0;
	b->cap = 0;
}

void tg_buf_freep(tg_buf *b)
{
	tg_buf_free(b);
}
