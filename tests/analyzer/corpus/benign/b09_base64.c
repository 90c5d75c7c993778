// expect: pass
/* Base64-encode stdin. */
#include <stdio.h>
#include <stdint.h>

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int main(void)
{
	unsigned char in[3];
	size_t n;

	putchar('"');
	while ((n = fread(in, 1, 3, stdin)) > 0) {
		uint32_t v = (uint32_t)in[0] << 16;
		if (n > 1)
			v |= (uint32_t)in[1] << 8;
		if (n > 2)
			v |= in[2];
		putchar(alphabet[(v >> 18) & 63]);
		putchar(alphabet[(v >> 12) & 63]);
		putchar(n > 1 ? alphabet[(v >> 6) & 63] : '=');
		putchar(n > 2 ? alphabet[v & 63] : '=');
	}
	puts("\"");
	return 0;
}
