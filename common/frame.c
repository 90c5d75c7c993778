/*
 * common/frame.c: frames, the messages of the tool bridge (a tool program
 * and the registry, docs/BRIDGE.md) and of `serve --http` with its registry
 * workers: a 4-byte big-endian length, then that many bytes of compact JSON
 * (tg_json_dump). The SDK header sdk/toolgate/tool.h keeps its own copy for
 * tool programs, which link nothing of ours. The reader hands back the text
 * and leaves the parsing to its caller: the bridge reads an untrusted
 * program (tg_json_parse with its limits), the server its own workers. With
 * a stop descriptor every wait watches it too (the bridge's serving thread
 * ends with the run even when the program neither reads nor writes);
 * without one, reads and writes simply block.
 */
#include "common.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

/* Wait until fd is ready for ev: 1, or 0 once stop_fd is readable (or
 * poll fails). */
static int wait_fd(int fd, short ev, int stop_fd)
{
	for (;;) {
		struct pollfd p[2] = { { fd, ev, 0 }, { stop_fd, POLLIN, 0 } };
		int k = poll(p, 2, -1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 || (p[1].revents & POLLIN))
			return 0;
		if (p[0].revents)
			return 1;
	}
}

/* Read exactly n bytes: 1 done, 0 end of input (or an error) before the
 * first byte, -1 after some, TG_FRAME_STOPPED. */
static int read_exact(int fd, int stop_fd, void *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t k;
		if (stop_fd >= 0) {
			if (!wait_fd(fd, POLLIN, stop_fd))
				return TG_FRAME_STOPPED;
			k = recv(fd, (char *)buf + off, n - off, MSG_DONTWAIT);
			if (k < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
		} else {
			k = read(fd, (char *)buf + off, n - off);
			if (k < 0 && errno == EINTR)
				continue;
		}
		if (k <= 0)
			return off == 0 ? 0 : -1;
		off += (size_t)k;
	}
	return 1;
}

/* Write all of buf to a socket, giving up when stop_fd is readable. */
static int write_until(int fd, int stop_fd, const void *buf, size_t n)
{
	size_t off = 0;

	if (stop_fd < 0)
		return tg_fd_write_all(fd, buf, n);
	while (off < n) {
		ssize_t k;
		if (!wait_fd(fd, POLLOUT, stop_fd))
			return tg_error_set(TG_ERR_IO, "write: stopped");
		k = send(fd, (const char *)buf + off, n - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k < 0)
			return tg_error_errno(TG_ERR_IO, errno, "write");
		if (k == 0)
			return tg_error_set(TG_ERR_IO, "write: nothing written");
		off += (size_t)k;
	}
	return 0;
}

int tg_frame_write_until(int fd, int stop_fd, const json_t *v)
{
	_cleanup_free_ char *text = tg_json_dump(v);
	unsigned char hdr[4];
	size_t n;
	int r;

	if (!text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	n = strlen(text);
	if (n > UINT32_MAX)
		return tg_error_set(TG_ERR_LIMIT, "a frame of %zu bytes does not fit its length", n);
	hdr[0] = (unsigned char)(n >> 24);
	hdr[1] = (unsigned char)(n >> 16);
	hdr[2] = (unsigned char)(n >> 8);
	hdr[3] = (unsigned char)n;
	r = write_until(fd, stop_fd, hdr, 4);
	return r < 0 ? r : write_until(fd, stop_fd, text, n);
}

int tg_frame_write(int fd, const json_t *v)
{
	return tg_frame_write_until(fd, -1, v);
}

int tg_frame_read_until(int fd, int stop_fd, size_t max, char **json, size_t *len)
{
	unsigned char hdr[4];
	char *body;
	uint32_t n;
	int k;

	*json = NULL;
	*len = 0;
	k = read_exact(fd, stop_fd, hdr, 4);
	if (k == 0 || k == TG_FRAME_STOPPED)
		return k;
	if (k < 0)
		return tg_error_set(TG_ERR_INVALID, "a frame header was cut short");
	n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (n == 0)
		return tg_error_set(TG_ERR_INVALID, "an empty frame");
	if (n > max)
		return tg_error_set(TG_ERR_LIMIT, "a frame of %u bytes is over the limit of %zu",
				    (unsigned)n, max);
	body = malloc((size_t)n + 1);
	if (!body)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	k = read_exact(fd, stop_fd, body, n);
	if (k != 1) {
		free(body);
		if (k == TG_FRAME_STOPPED)
			return k;
		return tg_error_set(TG_ERR_INVALID, "a frame was cut short");
	}
	body[n] = '\0';
	*json = body;
	*len = n;
	return 1;
}

int tg_frame_read(int fd, size_t max, char **json, size_t *len)
{
	return tg_frame_read_until(fd, -1, max, json, len);
}
