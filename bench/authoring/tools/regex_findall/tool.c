#include <regex.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *p = tg_arg_str(a, "text", "");
	regex_t re;
	regmatch_t m;

	if (regcomp(&re, tg_arg_str(a, "pattern", ""), REG_EXTENDED) != 0)
		tg_tool_fail("bad pattern");
	tg_out_array_begin();
	while (*p && regexec(&re, p, 1, &m, 0) == 0) {
		if (m.rm_eo == m.rm_so) {
			p++;
			continue;
		}
		tg_out_strn(p + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
		p += m.rm_eo;
	}
	tg_out_array_end();
	tg_out_end();
	regfree(&re);
	return 0;
}
