#include <toolgate/tool.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	size_t n = 0;
	const unsigned char *s = (const unsigned char *)tg_arg_strn(a, "text", &n);
	char *out = malloc(4 * (n / 3 + 1) + 1);
	size_t o = 0;

	if (!out)
		tg_tool_fail("out of memory");
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	tg_out_object_begin();
	tg_out_key_strn("base64", out, o);
	tg_out_end();
	free(out);
	return 0;
}
