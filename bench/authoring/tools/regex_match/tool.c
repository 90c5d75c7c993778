#include <regex.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	regex_t re;
	regmatch_t m;
	char err[256];
	int rc = regcomp(&re, tg_arg_str(a, "pattern", ""), REG_EXTENDED);

	if (rc != 0) {
		regerror(rc, &re, err, sizeof(err));
		tg_tool_fail("bad pattern: %s", err);
	}
	rc = regexec(&re, text, 1, &m, 0);
	tg_out_object_begin();
	tg_out_key_bool("match", rc == 0);
	if (rc == 0)
		tg_out_key_strn("matched", text + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
	tg_out_end();
	regfree(&re);
	return 0;
}
