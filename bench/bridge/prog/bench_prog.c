/*
 * bench/bridge/prog/bench_prog.c: `bench_prog N`: makes N bridged calls to
 * the tool "echo0" over fd 3 (the SDK's framing, written out here so the
 * program can time each call) and prints the wall time of each, in
 * microseconds, as a JSON array. Static, not vetted: a benchmark fixture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int io(int wr, void *b, size_t n)
{
	char *p = b;
	while (n) {
		ssize_t k = wr ? write(3, p, n) : read(3, p, n);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, i;
	char req[128], body[4096];

	fputc('[', stdout);
	for (i = 0; i < n; i++) {
		unsigned char h[4];
		size_t len = (size_t)snprintf(req, sizeof(req),
					      "{\"id\":%d,\"tool\":\"echo0\",\"args\":{}}", i + 1);
		double t0 = now_us();
		h[0] = (unsigned char)(len >> 24);
		h[1] = (unsigned char)(len >> 16);
		h[2] = (unsigned char)(len >> 8);
		h[3] = (unsigned char)len;
		if (io(1, h, 4) < 0 || io(1, req, len) < 0 || io(0, h, 4) < 0)
			return 3;
		len = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
		if (len >= sizeof(body) || io(0, body, len) < 0)
			return 3;
		body[len] = '\0';
		if (!strstr(body, "\"result\""))
			return 4; /* every call must succeed */
		printf("%s%.1f", i ? "," : "", now_us() - t0);
	}
	puts("]");
	return 0;
}
