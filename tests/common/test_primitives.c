/*
 * tests/common/test_primitives.c: unit tests of the primitives common/ keeps
 * once for every module: whole writes (tg_fd_write_all, tg_file_write_str),
 * the bridge's and the HTTP workers' frames, random bytes, the error codes'
 * distance from errno, and the canonical digest of a JSON value whose stored
 * form must never change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "common/common.h"

static void test_codes_clear_of_errno(void **state)
{
	static const int codes[] = { TG_ERR_INVALID, TG_ERR_NOTFOUND, TG_ERR_EXISTS,
				     TG_ERR_LIMIT, TG_ERR_CONFLICT, TG_ERR_IO, TG_ERR_NOMEM,
				     TG_ERR_UNAVAILABLE, TG_ERR_INTERNAL, TG_ERR_DENIED };
	size_t i;
	(void)state;
	for (i = 0; i < TG_ARRAY_SIZE(codes); i++)
		assert_true(codes[i] < -4095);
	assert_int_not_equal(TG_ERR_NOTFOUND, -ENOENT);
	assert_int_equal(tg_error_exit_status(TG_ERR_NOTFOUND), 2);
	assert_int_equal(tg_error_exit_status(TG_ERR_DENIED), 1);
	assert_int_equal(tg_error_exit_status(TG_ERR_CONFLICT), 3);
	/* an errno value is not a code: the generic exit status and name */
	assert_int_equal(tg_error_exit_status(-ENOENT), 3);
	assert_string_equal(tg_error_code_name(-ENOENT), "error");
	assert_string_equal(tg_error_code_name(TG_ERR_NOTFOUND), "not_found");
}

static char *tmp_path(void)
{
	char *p = strdup("/tmp/tg_prim_XXXXXX");
	int fd = mkstemp(p);
	assert_true(fd >= 0);
	close(fd);
	return p;
}

struct drain {
	int fd;
	size_t got;
};

static void *drain_main(void *arg)
{
	struct drain *d = arg;
	char buf[4096];
	ssize_t k;

	while ((k = read(d->fd, buf, sizeof(buf))) > 0)
		d->got += (size_t)k;
	return NULL;
}

static void test_fd_write_all(void **state)
{
	_cleanup_free_ char *path = tmp_path(), *back = NULL, *big = NULL;
	size_t len, n = (size_t)4 << 20;
	struct drain d = { -1, 0 };
	pthread_t th;
	int fd, sp[2];
	(void)state;

	/* a file */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(tg_fd_write_all(fd, "hello, world", 12), 0);
	assert_int_equal(tg_fd_write_all(fd, "", 0), 0);
	close(fd);
	assert_int_equal(tg_file_read(&back, &len, path, 100), 0);
	assert_int_equal(len, 12);
	assert_string_equal(back, "hello, world");

	/* a socket far above its buffer: many partial writes */
	big = malloc(n);
	assert_non_null(big);
	memset(big, 'x', n);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	d.fd = sp[1];
	assert_int_equal(pthread_create(&th, NULL, drain_main, &d), 0);
	assert_int_equal(tg_fd_write_all(sp[0], big, n), 0);
	close(sp[0]);
	pthread_join(th, NULL);
	close(sp[1]);
	assert_int_equal(d.got, n);

	/* the peer gone: TG_ERR_IO and EPIPE, no SIGPIPE (it would end us) */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	close(sp[1]);
	assert_int_equal(tg_fd_write_all(sp[0], "x", 1), TG_ERR_IO);
	assert_int_equal(errno, EPIPE);
	assert_non_null(strstr(tg_error_last()->message, "write"));
	close(sp[0]);
	/* not a descriptor */
	assert_int_equal(tg_fd_write_all(-1, "x", 1), TG_ERR_IO);
	assert_int_equal(errno, EBADF);
	unlink(path);
}

static void test_file_write_str(void **state)
{
	_cleanup_free_ char *path = tmp_path(), *back = NULL;
	size_t len;
	(void)state;

	assert_int_equal(tg_file_write_atomic(path, "xyz!", 4, 0600), 0);
	/* neither truncated nor created: a control file's write */
	assert_int_equal(tg_file_write_str(path, "ab"), 0);
	assert_int_equal(tg_file_read(&back, &len, path, 100), 0);
	assert_string_equal(back, "abz!");
	unlink(path);
	tg_error_clear();
	assert_int_equal(tg_file_write_str(path, "ab"), -ENOENT);
	/* no message: the caller says the failure */
	assert_string_equal(tg_error_last()->message, "");
	assert_int_equal(tg_file_write_str("/proc/self/no_such_control", "1"), -ENOENT);
}

static void put_raw(int fd, const void *p, size_t n)
{
	assert_int_equal(write(fd, p, n), (ssize_t)n);
}

static void test_frames(void **state)
{
	_cleanup_json_ json_t *v = json_pack("{s:I, s:s, s:{s:f}}", "id", (json_int_t)7, "tool",
					     "h\xc3\xa9", "args", "x", 0.1);
	char *text = NULL;
	unsigned char hdr[4];
	size_t len;
	int sp[2], stop;
	(void)state;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	/* the wire form: big-endian length, compact JSON */
	assert_int_equal(tg_frame_write(sp[0], v), 0);
	assert_int_equal(read(sp[1], hdr, 4), 4);
	len = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8 | hdr[3];
	{
		const char want[] = "{\"id\":7,\"tool\":\"h\xc3\xa9\",\"args\":{\"x\":0.1}}";
		char body[64];
		assert_int_equal(len, strlen(want));
		assert_int_equal(read(sp[1], body, len), (ssize_t)len);
		assert_memory_equal(body, want, len);
	}
	/* round trip, with and without a stop descriptor */
	assert_int_equal(tg_frame_write(sp[0], v), 0);
	assert_int_equal(tg_frame_read(sp[1], 1024, &text, &len), 1);
	assert_int_equal(len, strlen(text));
	assert_string_equal(text, "{\"id\":7,\"tool\":\"h\xc3\xa9\",\"args\":{\"x\":0.1}}");
	free(text);
	stop = eventfd(0, EFD_CLOEXEC);
	assert_true(stop >= 0);
	assert_int_equal(tg_frame_write_until(sp[1], stop, v), 0);
	assert_int_equal(tg_frame_read_until(sp[0], stop, 1024, &text, &len), 1);
	assert_int_equal(len, strlen(text));
	free(text);

	/* the refusals, each with its message */
	put_raw(sp[0], "\0\0\0\0", 4);
	assert_int_equal(tg_frame_read(sp[1], 1024, &text, &len), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "an empty frame");
	assert_null(text);
	put_raw(sp[0], "\0\0\x04\x01", 4);
	assert_int_equal(tg_frame_read(sp[1], 1024, &text, &len), TG_ERR_LIMIT);
	assert_string_equal(tg_error_last()->message,
			    "a frame of 1025 bytes is over the limit of 1024");
	/* exactly max is fine */
	put_raw(sp[0], "\0\0\0\x02{}", 6);
	assert_int_equal(tg_frame_read(sp[1], 2, &text, &len), 1);
	assert_string_equal(text, "{}");
	free(text);

	/* stopped: nothing read, the frame stays */
	put_raw(sp[0], "\0\0", 2);
	{
		uint64_t one = 1;
		assert_int_equal(write(stop, &one, sizeof(one)), (ssize_t)sizeof(one));
	}
	assert_int_equal(tg_frame_read_until(sp[1], stop, 1024, &text, &len), TG_FRAME_STOPPED);
	assert_null(text);
	assert_int_equal(tg_frame_write_until(sp[0], stop, v), TG_ERR_IO);
	close(stop);

	/* cut short: the header, then a body */
	shutdown(sp[0], SHUT_WR);
	assert_int_equal(tg_frame_read(sp[1], 1024, &text, &len), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "a frame header was cut short");
	close(sp[0]);
	close(sp[1]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	put_raw(sp[0], "\0\0\0\x09{\"a\"", 8);
	shutdown(sp[0], SHUT_WR);
	assert_int_equal(tg_frame_read(sp[1], 1024, &text, &len), TG_ERR_INVALID);
	assert_string_equal(tg_error_last()->message, "a frame was cut short");
	/* the end of input before a frame */
	assert_int_equal(tg_frame_read(sp[1], 1024, &text, &len), 0);
	assert_null(text);
	close(sp[0]);
	close(sp[1]);
	/* a peer gone: the write fails, no SIGPIPE */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	close(sp[1]);
	assert_int_equal(tg_frame_write(sp[0], v), TG_ERR_IO);
	close(sp[0]);
}

static int is_hex(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[n] == '\0';
}

static void test_random(void **state)
{
	char a[65], b[65], big[2 * 300 + 1];
	unsigned char raw[32] = { 0 }, zero[32] = { 0 };
	(void)state;

	assert_int_equal(tg_random_hex(a, 32), 0);
	assert_int_equal(tg_random_hex(b, 32), 0);
	assert_true(is_hex(a, 64) && is_hex(b, 64));
	assert_string_not_equal(a, b);
	/* more than one chunk of its buffer */
	memset(big, 'Z', sizeof(big));
	assert_int_equal(tg_random_hex(big, 300), 0);
	assert_true(is_hex(big, 600));
	assert_int_equal(tg_random_hex(a, 0), 0);
	assert_string_equal(a, "");
	assert_int_equal(tg_random_bytes(raw, sizeof(raw)), 0);
	assert_memory_not_equal(raw, zero, sizeof(raw));
	assert_int_equal(tg_random_bytes(raw, 0), 0);
}

static void test_json_digest(void **state)
{
	_cleanup_json_ json_t *v = json_pack("{s:s, s:i}", "b", "\xc3\xa9", "a", 1);
	_cleanup_json_ json_t *w = json_pack("{s:i, s:s}", "a", 1, "b", "\xc3\xa9");
	_cleanup_json_ json_t *s = json_string("x");
	char d1[65], d2[65], want[65];
	const char *canon = "{\"a\":1,\"b\":\"\xc3\xa9\"}";
	(void)state;

	/* the stored form: pinned, so it can never drift */
	assert_int_equal(tg_json_digest(d1, "toolgate-call-v1", "v1", v), 0);
	assert_string_equal(d1, "c3fc9c2f6cc3dfd09a1005b5d885945e4b8ee69fdf8eefb6526ad315ae8a2357");
	/* key order does not count */
	assert_int_equal(tg_json_digest(d2, "toolgate-call-v1", "v1", w), 0);
	assert_string_equal(d1, d2);
	/* untagged: the SHA-256 of the canonical text (UTF-8, not \u00e9) */
	assert_int_equal(tg_json_digest(d1, NULL, NULL, w), 0);
	tg_sha256_hex(want, canon, strlen(canon));
	assert_string_equal(d1, want);
	assert_string_equal(d1, "09ad9fd2fb648cb2f62141215828ea00a62c299db05d20aa9ade2f527a301cc6");
	/* no value: the tag lines alone; untagged: of "" */
	assert_int_equal(tg_json_digest(d1, "toolgate-request-v1", "t", NULL), 0);
	assert_string_equal(d1, "66a44c50e5f22b04d6d7ca7bd51aa829520278a641f68e02fedacb94a3f4314d");
	assert_int_equal(tg_json_digest(d1, NULL, NULL, NULL), 0);
	tg_sha256_hex(want, "", 0);
	assert_string_equal(d1, want);
	/* a scalar cannot be written without JSON_ENCODE_ANY: as if NULL */
	assert_int_equal(tg_json_digest(d1, "toolgate-request-v1", "t", s), TG_ERR_INVALID);
	assert_string_equal(d1, "66a44c50e5f22b04d6d7ca7bd51aa829520278a641f68e02fedacb94a3f4314d");
}

/* A library loaded on first need: a missing one keeps its error for every
 * later caller, named by its label; a present one fills its slots once. */
static int (*dl_getpid)(void);
static void test_dl_need(void **state)
{
	static const char *const missing_names[] = { "getpid" };
	static void *missing_slot;
	static void **const missing_slots[] = { &missing_slot };
	static tg_dl_lib missing = TG_DL_LIB("libnothere", "libtg-not-here.so.0", NULL,
					     missing_names, missing_slots);
	static const char *const libc_names[] = { "getpid" };
	static void **const libc_slots[] = { (void **)&dl_getpid };
	static tg_dl_lib libc = TG_DL_LIB("libc", "libc.so.6", NULL, libc_names, libc_slots);
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(tg_dl_need(&missing), TG_ERR_UNAVAILABLE);
		assert_non_null(strstr(tg_error_last()->message,
				       "libnothere: cannot load libtg-not-here.so.0"));
		assert_null(missing_slot);
	}
	assert_int_equal(tg_dl_need(&libc), 0);
	assert_non_null(dl_getpid);
	assert_int_equal(dl_getpid(), getpid());
	dl_getpid = NULL;
	assert_int_equal(tg_dl_need(&libc), 0); /* loaded once: not again */
	assert_null(dl_getpid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_clear_of_errno),
		cmocka_unit_test(test_fd_write_all),
		cmocka_unit_test(test_file_write_str),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_json_digest),
		cmocka_unit_test(test_dl_need),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
