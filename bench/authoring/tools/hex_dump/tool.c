#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	size_t n = 0;
	const unsigned char *s = (const unsigned char *)tg_arg_strn(a, "text", &n);
	char *out = malloc(3 * n + 1);

	if (!out)
		tg_tool_fail("out of memory");
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + 3 * i, 4, i + 1 < n ? "%02x " : "%02x", s[i]);
	tg_out_object_begin();
	tg_out_key_str("hex", out);
	tg_out_end();
	free(out);
	return 0;
}
