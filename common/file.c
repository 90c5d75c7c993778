/*
 * common/file.c: bounded reads and crash-safe writes. A write goes to a
 * temporary file in the same folder, is fsynced, renamed over the target and
 * the folder fsynced, so a crash leaves the old or the new file, never a part.
 * Also the one loop that writes a whole buffer to a descriptor (EINTR,
 * partial writes; a socket never raises SIGPIPE), and the writer of a short
 * value into an existing control file (/proc, cgroup files) that gives its
 * caller the errno.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

/* Write all of buf: 0, or -errno (EIO for a write that wrote nothing).
 * sock: try send(MSG_NOSIGNAL) first, so a socket whose peer went away is
 * EPIPE and not a signal; anything else (ENOTSOCK) gets write(). */
static int write_loop(int fd, const void *buf, size_t len, int sock)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = sock ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);
		if (n < 0 && errno == ENOTSOCK && sock) {
			sock = 0;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tg_fd_write_all(int fd, const void *buf, size_t len)
{
	int e = write_loop(fd, buf, len, 1);

	if (e < 0) {
		tg_error_errno(TG_ERR_IO, -e, "write");
		errno = -e;
		return TG_ERR_IO;
	}
	return 0;
}

int tg_file_write_str(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	e = write_loop(fd, text, strlen(text), 0);
	close(fd);
	return e;
}

int tg_fd_read_all(char **out, size_t *len_out, int fd, size_t max)
{
	tg_buf b = TG_BUF_INIT(max);
	char chunk[65536];
	int r;

	*out = NULL;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = tg_error_errno(TG_ERR_IO, errno, "read");
			goto fail;
		}
		if (n == 0)
			break;
		r = tg_buf_append(&b, chunk, (size_t)n);
		if (r < 0)
			goto fail;
	}
	*out = tg_buf_detach(&b, len_out);
	if (!*out)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
fail:
	tg_buf_free(&b);
	return r;
}

int tg_file_read(char **out, size_t *len_out, const char *path, size_t max)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return tg_error_errno(errno == ENOENT ? TG_ERR_NOTFOUND : TG_ERR_IO, errno, "%s", path);
	if (fstat(fd, &st) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "%s", path);
	if (!S_ISREG(st.st_mode))
		return tg_error_set(TG_ERR_INVALID, "%s: not a regular file", path);
	if ((uint64_t)st.st_size > max)
		return tg_error_set(TG_ERR_LIMIT, "%s: file of %lld bytes exceeds the limit of %zu",
				    path, (long long)st.st_size, max);
	r = tg_fd_read_all(out, len_out, fd, max);
	if (r < 0)
		return tg_error_prefix("%s", path);
	return 0;
}

static int fsync_dir(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_close_ int fd = -1;

	if (!copy)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "fsync folder of %s", path);
	return 0;
}

int tg_file_write_atomic(const char *path, const void *data, size_t len, int mode)
{
	_cleanup_free_ char *tmp = NULL;
	int fd, r;

	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		tmp = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "%s", tmp);
	r = write_loop(fd, data, len, 0);
	if (r < 0) {
		r = tg_error_errno(TG_ERR_IO, -r, "write %s", path);
		goto fail;
	}
	if (fsync(fd) < 0) {
		r = tg_error_errno(TG_ERR_IO, errno, "fsync %s", path);
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = tg_error_errno(TG_ERR_IO, errno, "close %s", path);
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		r = tg_error_errno(TG_ERR_IO, errno, "rename to %s", path);
		goto fail;
	}
	return fsync_dir(path);
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return r;
}

int tg_mkdir_p(const char *path, int mode)
{
	_cleanup_free_ char *copy = strdup(path);
	char *p;

	if (!copy)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, (mode_t)mode) < 0 && errno != EEXIST)
			return tg_error_errno(TG_ERR_IO, errno, "mkdir %s", copy);
		*p = '/';
	}
	if (mkdir(copy, (mode_t)mode) < 0 && errno != EEXIST)
		return tg_error_errno(TG_ERR_IO, errno, "mkdir %s", copy);
	return 0;
}

char *tg_path_join(const char *a, const char *b)
{
	char *out;
	size_t la = strlen(a);
	while (*b == '/')
		b++;
	if (asprintf(&out, "%s%s%s", a, (la && a[la - 1] == '/') ? "" : "/", b) < 0)
		return NULL;
	return out;
}
