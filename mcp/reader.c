/*
 * mcp/reader.c: the stdio framing of MCP, newline-delimited messages read
 * from a file descriptor with a bounded buffer. A line longer than the cap is
 * reported once (TG_MCP_READ_OVERSIZE) and its remaining bytes are dropped as
 * they arrive, up to and including the next "\n": the buffer never holds more
 * than the cap plus one read chunk, whatever the peer sends. A trailing "\r"
 * is taken off; a last line without "\n" before end of input still counts.
 */
#include "mcp/mcp.h"

#include <errno.h>
#include <string.h>

#define TG_MCP_CHUNK ((size_t)64 << 10)

void tg_mcp_reader_init(tg_mcp_reader *r, int fd, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->max = max ? max : TG_MCP_MAX_MESSAGE;
}

void tg_mcp_reader_free(tg_mcp_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	r->buf = NULL;
	r->start = r->len = r->cap = r->scanned = 0;
}

/* Make room for one chunk after len: compact, then grow up to max + chunk. */
static int reserve_chunk(tg_mcp_reader *r)
{
	size_t want;
	char *p;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->start = 0;
	}
	if (r->cap - r->len >= TG_MCP_CHUNK)
		return 0;
	want = r->len + TG_MCP_CHUNK;
	if (want < 2 * r->cap)
		want = 2 * r->cap;
	if (want > r->max + 1 + TG_MCP_CHUNK)
		want = r->max + 1 + TG_MCP_CHUNK;
	if (want <= r->cap)
		return 0; /* full: next() frees room by discarding */
	p = realloc(r->buf, want);
	if (!p)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r->buf = p;
	r->cap = want;
	return 0;
}

int tg_mcp_reader_fill(tg_mcp_reader *r)
{
	ssize_t n;
	size_t room;
	int rc;

	if (r->eof)
		return 0;
	rc = reserve_chunk(r);
	if (rc < 0)
		return rc;
	room = r->cap - r->len;
	if (room > TG_MCP_CHUNK)
		room = TG_MCP_CHUNK;
	if (room == 0)
		return 1;
	n = read(r->fd, r->buf + r->len, room);
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		return tg_error_errno(TG_ERR_IO, errno, "read");
	}
	if (n == 0) {
		r->eof = 1;
		return 0;
	}
	r->len += (size_t)n;
	return 1;
}

static void consume(tg_mcp_reader *r, size_t n)
{
	r->start += n;
	r->scanned = 0;
	if (r->start == r->len)
		r->start = r->len = 0;
}

int tg_mcp_reader_next(tg_mcp_reader *r, const char **line, size_t *len)
{
	for (;;) {
		size_t avail = r->len - r->start;
		char *base = r->buf ? r->buf + r->start : NULL; /* no arithmetic on NULL */
		char *nl = avail > r->scanned ? memchr(base + r->scanned, '\n', avail - r->scanned) : NULL;

		if (r->discarding) {
			if (!nl) {
				consume(r, avail);
				if (r->eof) {
					r->discarding = 0;
					return TG_MCP_READ_EOF;
				}
				return TG_MCP_READ_NONE;
			}
			consume(r, (size_t)(nl - base) + 1);
			r->discarding = 0;
			continue;
		}
		if (nl) {
			size_t n = (size_t)(nl - base);
			consume(r, n + 1);
			if (n > r->max) {
				/* The whole over-long line arrived in one piece. */
				return TG_MCP_READ_OVERSIZE;
			}
			if (n > 0 && base[n - 1] == '\r')
				n--;
			*line = base;
			*len = n;
			return TG_MCP_READ_LINE;
		}
		r->scanned = avail;
		if (avail > r->max) {
			consume(r, avail);
			r->discarding = !r->eof;
			return TG_MCP_READ_OVERSIZE;
		}
		if (r->eof) {
			if (avail == 0)
				return TG_MCP_READ_EOF;
			consume(r, avail);
			if (base[avail - 1] == '\r')
				avail--;
			*line = base;
			*len = avail;
			return TG_MCP_READ_LINE;
		}
		return TG_MCP_READ_NONE;
	}
}
