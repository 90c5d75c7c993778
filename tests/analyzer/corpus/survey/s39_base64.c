// expect: pass
/* survey: base64 encode */
#include <stdio.h>
#include <string.h>
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
int main(void)
{
	const unsigned char *s = (const unsigned char *)"hello";
	size_t n = strlen((const char *)s);
	char out[16];
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = s[i] << 16 | (i + 1 < n ? s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = 0;
	printf("{\"b64\":\"%s\"}\n", out);
	return 0;
}
