#include <stdarg.h>
#include <toolgate/tool.h>

static char buf[1024];
static size_t used;

static void append(const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(buf + used, sizeof(buf) - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf) - used)
		tg_tool_fail("report too long");
	used += (size_t)n;
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *vals = tg_arg_object(a, "values");
	append("%s:", tg_arg_str(a, "title", "report"));
	for (size_t i = 0; i < tg_value_len(vals); i++)
		append(" %s=%g", tg_value_key(vals, i), tg_value_num(tg_value_at(vals, i)));
	tg_out_object_begin();
	tg_out_key_str("line", buf);
	tg_out_end();
	return 0;
}
