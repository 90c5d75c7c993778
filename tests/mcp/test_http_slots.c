/*
 * tests/mcp/test_http_slots.c: the eviction of `serve --http`'s
 * unauthenticated connections (mcp/http_slots.c) on real loopback sockets.
 * Each connection is a TCP connection from a chosen 127.0.0.X to a listener
 * of the test; its accepted end is handed to http_slot_add as libmicrohttpd
 * hands it, and nobody reads it, as on a loaded host where the connection's
 * thread has not run yet. A client that sent its whole request at once is
 * never the one evicted while a socket that sent less is left (per address
 * and past the unauthenticated share), whatever its age; one whose request
 * is not complete, or was already read from the queue, is evicted as the
 * oldest (so the tests can fail); one that sent part of a request and
 * stalled goes before an older one that sent nothing; a new connection
 * over the per-address
 * limit is closed unless its own request is complete; the next request on
 * a connection proves itself again. An evicted client reads end of input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mcp/http_internal.h"

#define NSLOTS 16
#define FULL "POST /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer t\r\nContent-Length: 2\r\n\r\n{}"
#define SLOW "POST /mcp HTTP/1.1\r\nHost: a\r\nX-Slow: x"

typedef struct fx {
	tg_http h;
	int lfd;
	uint16_t port;
	int cli[NSLOTS]; /* client ends, by slot */
} fx;

static fx *fx_new(unsigned max_conn, unsigned per_ip, unsigned reserve)
{
	fx *f = calloc(1, sizeof(*f));
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	unsigned i;

	assert_non_null(f);
	pthread_mutex_init(&f->h.lock, NULL);
	f->h.slots = calloc(NSLOTS, sizeof(conn_slot));
	f->h.nslots = NSLOTS;
	for (i = 0; i < NSLOTS; i++) {
		f->h.slots[i].fd = -1;
		f->cli[i] = -1;
	}
	f->h.opt.max_connections = max_conn;
	f->h.opt.unauth_per_ip = per_ip;
	f->h.opt.auth_reserve_pct = reserve;
	f->lfd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(f->lfd, 64), 0);
	assert_int_equal(getsockname(f->lfd, (struct sockaddr *)&a, &len), 0);
	f->port = ntohs(a.sin_port);
	return f;
}

static void fx_free(fx *f)
{
	unsigned i;

	for (i = 0; i < NSLOTS; i++) {
		if (f->h.slots[i].fd >= 0)
			close(f->h.slots[i].fd);
		if (f->cli[i] >= 0)
			close(f->cli[i]);
	}
	close(f->lfd);
	free(f->h.slots);
	pthread_mutex_destroy(&f->h.lock);
	free(f);
}

/* A connection from 127.0.0.<from> that sent data; its slot, added as the
 * server adds it once the data is in the accepted end's queue. opened is
 * set to `at` so the age order is the test's, not the clock's. */
static conn_slot *conn(fx *f, int from, const char *data, uint64_t at)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	struct pollfd p;
	int c = socket(AF_INET, SOCK_STREAM, 0), s;
	char addr[16];
	conn_slot *slot;

	snprintf(addr, sizeof(addr), "127.0.0.%d", from);
	inet_pton(AF_INET, addr, &src.sin_addr);
	assert_int_equal(bind(c, (struct sockaddr *)&src, sizeof(src)), 0);
	dst.sin_port = htons(f->port);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(c, (struct sockaddr *)&dst, sizeof(dst)), 0);
	s = accept(f->lfd, (struct sockaddr *)&peer, &plen);
	assert_true(s >= 0);
	if (data[0]) {
		assert_int_equal(write(c, data, strlen(data)), (ssize_t)strlen(data));
		p = (struct pollfd){ .fd = s, .events = POLLIN };
		assert_int_equal(poll(&p, 1, 2000), 1);
	}
	slot = http_slot_add(&f->h, s, (struct sockaddr *)&peer);
	assert_non_null(slot);
	slot->opened = at;
	f->cli[slot - f->h.slots] = c;
	return slot;
}

/* The client of slot s was cut: it reads end of input. */
static void assert_cut(fx *f, const conn_slot *s)
{
	char b[8];
	struct pollfd p = { .fd = f->cli[s - f->h.slots], .events = POLLIN };

	assert_true(s->closing);
	assert_int_equal(poll(&p, 1, 2000), 1);
	assert_int_equal(read(p.fd, b, sizeof(b)), 0);
}

/* n slow senders from 127.0.0.<from>, opened at at, at+1, ... */
static void senders(fx *f, int from, conn_slot **out, int n, uint64_t at)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = conn(f, from, SLOW, at + (uint64_t)i);
}

static void test_per_address_spares_complete_request(void **state)
{
	fx *f = fx_new(64, 4, 25);
	conn_slot *legit = conn(f, 1, FULL, 1), *slow[7];
	int i;

	(void)state;
	senders(f, 1, slow, 3, 10);
	assert_false(legit->closing);
	/* the fifth from 127.0.0.1: the oldest waiting one is cut, and that
	 * is the first slow sender, not the older complete request */
	for (i = 3; i < 7; i++) {
		slow[i] = conn(f, 1, SLOW, 10 + (uint64_t)i);
		assert_cut(f, slow[i - 3]);
		assert_false(legit->closing);
		assert_false(slow[i]->closing);
	}
	assert_int_equal(legit->queued, 1);
	assert_int_equal(slow[6]->queued, 0);
	fx_free(f);
}

static void test_per_address_incomplete_is_evicted(void **state)
{
	fx *f = fx_new(64, 4, 25);
	/* the same age order, but the oldest's request has no blank line yet */
	conn_slot *partial = conn(f, 1, "POST /mcp HTTP/1.1\r\nHost: a\r\n", 1), *s;
	char buf[256];
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		conn(f, 1, SLOW, 10 + (uint64_t)i);
	s = conn(f, 1, SLOW, 20);
	assert_cut(f, partial);
	assert_false(s->closing);
	/* a complete request already read from the queue (its thread took it)
	 * is not seen: it is cut as the oldest */
	fx_free(f);
	f = fx_new(64, 4, 25);
	partial = conn(f, 1, FULL, 1);
	assert_true(read(partial->fd, buf, sizeof(buf)) > 0);
	for (i = 0; i < 4; i++)
		conn(f, 1, SLOW, 10 + (uint64_t)i);
	assert_cut(f, partial);
	fx_free(f);
}

static void test_new_connection_over_limit(void **state)
{
	fx *f = fx_new(64, 2, 25);
	conn_slot *a = conn(f, 1, SLOW, 1), *b = conn(f, 1, SLOW, 2), *c;

	(void)state;
	/* both further along (headers in, token refused) */
	http_slot_headers(&f->h, a, 0, NULL);
	http_slot_headers(&f->h, b, 0, NULL);
	/* a new one that sent less is closed itself; one whose request is
	 * complete is let in, to be answered */
	c = conn(f, 1, SLOW, 3);
	assert_cut(f, c);
	c = conn(f, 1, FULL, 4);
	assert_false(c->closing);
	assert_false(a->closing);
	assert_false(b->closing);
	/* answered: the next request on it proves itself again */
	http_slot_exempt(&f->h, c, 0);
	assert_int_equal(c->queued, 0);
	assert_int_equal(c->headers, 0);
	fx_free(f);
}

static void test_share_spares_complete_request(void **state)
{
	/* 8 slots, 25 % kept for authenticated ones: 6 unauthenticated */
	fx *f = fx_new(8, 0, 25);
	conn_slot *legit = conn(f, 3, FULL, 1), *x[6];

	(void)state;
	/* 127.0.0.3 holds the most: the legit one and four slow senders */
	senders(f, 3, x, 4, 10);
	x[4] = conn(f, 2, SLOW, 5);
	assert_false(legit->closing);
	/* the seventh: past the share; 127.0.0.3's oldest waiting one goes */
	x[5] = conn(f, 2, SLOW, 30);
	assert_cut(f, x[0]);
	assert_false(legit->closing);
	assert_false(x[4]->closing);
	assert_false(x[5]->closing);
	fx_free(f);
}

static void test_stalled_sender_goes_first(void **state)
{
	fx *f = fx_new(64, 3, 25);
	conn_slot *idle, *stalled, *fresh;

	(void)state;
	/* the oldest sent nothing; a younger one sent a request line and then
	 * nothing for TG_HTTP_STALL_MS: it goes first */
	idle = conn(f, 1, "", 1);
	stalled = conn(f, 1, "POST /mcp HTTP/1.1\r\n", 2);
	usleep((TG_HTTP_STALL_MS + 50) * 1000);
	fresh = conn(f, 1, SLOW, 3);
	assert_false(fresh->closing);
	conn(f, 1, SLOW, 4);
	assert_cut(f, stalled);
	assert_false(idle->closing);
	assert_false(fresh->closing);
	/* (no further step: on a loaded host "fresh" may itself have
	 * stalled by then, which would make the next victim depend on the
	 * scheduler; every stall here only grows with time, so the steps
	 * above do not) */
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_address_spares_complete_request),
		cmocka_unit_test(test_per_address_incomplete_is_evicted),
		cmocka_unit_test(test_new_connection_over_limit),
		cmocka_unit_test(test_share_spares_complete_request),
		cmocka_unit_test(test_stalled_sender_goes_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
