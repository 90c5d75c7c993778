/*
 * tests/bridge/progs/bridge_prog.c: a raw program for the bridge's attack
 * tests. It is not vetted (it uses fd 3 directly, as memory-unsafe C could)
 * and runs in the real sandbox through reg_bridge_run(). argv[1] picks the
 * behaviour; replies it reads are printed as a JSON array of outcome codes
 * ("ok" for a result, else the error code).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(const void *b, size_t n)
{
	const char *p = b;
	while (n) {
		ssize_t k = write(3, p, n);
		if (k <= 0)
			exit(3);
		p += k;
		n -= (size_t)k;
	}
}

static int get(void *b, size_t n)
{
	char *p = b;
	while (n) {
		ssize_t k = read(3, p, n);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static void frame(const char *json)
{
	size_t n = strlen(json);
	unsigned char h[4] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16),
			       (unsigned char)(n >> 8), (unsigned char)n };
	put(h, 4);
	put(json, n);
}

static void request(int id, const char *tool, const char *args)
{
	char req[512];

	snprintf(req, sizeof(req), "{\"id\":%d,\"tool\":\"%s\",\"args\":%s}", id, tool, args);
	frame(req);
}

/* Read one reply and return its outcome code, with ":ID" when want_id
 * (static buffer). */
static const char *reply(int want_id)
{
	static char code[96];
	char *body, *c;
	unsigned char h[4];
	size_t n;

	if (get(h, 4) < 0)
		return "eof";
	n = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
	body = calloc(1, n + 1);
	if (!body || get(body, n) < 0)
		return "eof";
	if (strstr(body, "\"result\"")) {
		strcpy(code, "ok");
	} else if ((c = strstr(body, "\"code\":\""))) {
		c += 8;
		snprintf(code, sizeof(code), "%.*s", (int)strcspn(c, "\""), c);
	} else {
		strcpy(code, "?");
	}
	if (want_id && (c = strstr(body, "\"id\":")))
		snprintf(code + strlen(code), sizeof(code) - strlen(code), ":%ld",
			 strtol(c + 5, NULL, 10));
	free(body);
	return code;
}

/* Send a request and return its outcome code (static buffer). */
static const char *call(int id, const char *tool, const char *args)
{
	request(id, tool, args);
	return reply(0);
}

static void spin(void)
{
	volatile unsigned long x = 0;
	for (;;)
		x++;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int i;

	if (strcmp(m, "cap") == 0) {
		/* limits.max_tool_calls = 4: denied, failed, ok, ok, then refused */
		printf("[\"%s\"", call(1, "stats", "{}"));
		printf(",\"%s\"", call(2, "word_count", "{\"text\":5}"));
		printf(",\"%s\"", call(3, "word_count", "{\"text\":\"a b\"}"));
		printf(",\"%s\"", call(4, "word_count", "{\"text\":\"c\"}"));
		printf(",\"%s\"", call(5, "word_count", "{\"text\":\"d\"}"));
		printf(",\"%s\"]\n", call(6, "host:issue_refund", "{}"));
	} else if (strcmp(m, "pipelined") == 0) {
		/* three requests written before any reply is read: served one at
		 * a time, in order, each counted */
		request(1, "word_count", "{\"text\":\"a\"}");
		request(2, "word_count", "{\"text\":5}");
		request(3, "word_count", "{\"text\":\"b c\"}");
		printf("[\"%s\"", reply(1));
		printf(",\"%s\"", reply(1));
		printf(",\"%s\"]\n", reply(1));
	} else if (strcmp(m, "one") == 0) {
		printf("[\"%s\"]\n", call(1, "word_count", "{\"text\":\"a b c\"}"));
	} else if (strcmp(m, "malformed") == 0) {
		frame("nope!");
		printf("[\"%s\"]\n", call(2, "word_count", "{\"text\":\"a\"}"));
		fflush(stdout);
		spin();
	} else if (strcmp(m, "oversized") == 0) {
		unsigned char h[4] = { 0, 0x20, 0, 0 }; /* 2 MiB */
		put(h, 4);
		for (i = 0; i < 64; i++)
			put("xxxxxxxxxxxxxxxx", 16);
		spin();
	} else if (strcmp(m, "garbage") == 0) {
		put("hello, bridge!\n", 15);
		spin();
	} else if (strcmp(m, "noread") == 0) {
		/* thousands of requests, no reply ever read */
		for (i = 0; i < 5000; i++) {
			char req[96];
			snprintf(req, sizeof(req), "{\"id\":%d,\"tool\":\"stats\",\"args\":{}}", i);
			frame(req);
		}
		spin();
	} else if (strcmp(m, "reopen") == 0) {
		int fd;
		close(3);
		fd = open("/tmp/fake3", O_RDWR | O_CREAT | O_TRUNC, 0600);
		frame("{\"id\":1,\"tool\":\"word_count\",\"args\":{\"text\":\"a\"}}");
		printf("{\"fd\":%d}\n", fd);
	} else {
		return 2;
	}
	return 0;
}
