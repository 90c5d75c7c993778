// tests/mcp/fixtures.mjs: a small tool for the era and HTTP tests: word_count
// (counts words; `sleep_ms` makes a call slow, for the concurrency test).
export const WC = `#include <toolgate/tool.h>
#include <time.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *t = tg_arg_str(a, "text", "");
	long long ms = tg_arg_int(a, "sleep_ms", 0);
	long long words = 0;
	int in = 0;
	if (ms > 0) { /* busy: the sandbox allows reading the clock, not sleeping */
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t1);
		while ((t1.tv_sec - t0.tv_sec) * 1000LL + (t1.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	}
	for (; *t; t++) {
		int space = *t == ' ' || *t == '\\n' || *t == '\\t';
		if (!space && !in)
			words++;
		in = !space;
	}
	tg_out_object_begin();
	tg_out_key_int("words", words);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
`;

export function wcManifest(name = 'word_count') {
  return {
    name,
    description: 'Count the words in a text',
    input_schema: { type: 'object', properties: { text: { type: 'string' }, sleep_ms: { type: 'integer' } }, required: ['text'] },
    source: WC,
    tests: [{ name: 'two words', args: { text: 'a b' }, expect: { words: 2 } }],
    limits: { timeout_ms: 5000, memory_mb: 64 },
    capabilities: [],
  };
}

export const MODERN = '2026-07-28';
export const META_KEYS = (extra = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'era-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});

// spin: {"spin":true} spins until the sandbox ends it (its timeout, CPU
// limit or a cancellation); {} answers {"spun":false} at once.
export const SPIN = `#include <stdio.h>
#include <string.h>
int main(void)
{
	char in[256];
	size_t n = fread(in, 1, sizeof(in) - 1, stdin);
	volatile unsigned long i = 0;
	in[n] = '\\0';
	if (!strstr(in, "\\"spin\\":true")) {
		puts("{\\"spun\\":false}");
		return 0;
	}
	for (;;)
		i++;
}
`;

// hold: {"hold":true} touches 200 MB, {} 1 MB (the pointer is volatile: gcc
// drops a malloc whose stores are never read).
export const HOLD = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	char in[256];
	size_t n = fread(in, 1, sizeof(in) - 1, stdin), mb = 200, i;
	volatile char *p;
	in[n] = '\\0';
	if (!strstr(in, "\\"hold\\":true"))
		mb = 1;
	p = malloc(mb << 20);
	if (!p)
		return 1;
	for (i = 0; i < (mb << 20); i += 4096)
		p[i] = 1;
	printf("{\\"held_mb\\":%zu}\\n", mb);
	return 0;
}
`;

// The URL a `toolgate serve --http 127.0.0.1:0` child says it listens on
// (its stderr), or a rejection after ms.
export function listeningUrl(proc, ms = 15000) {
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening: ${err}`)), ms);
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
}
