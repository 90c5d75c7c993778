// expect: format_n
// finding: format_n: say: the format holds %n,
/* a logging wrapper of the tool's own: its callers are checked like printf's */
#include <stdarg.h>
#include <stdio.h>
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
int main(void)
{
	int n = 0;
	say("abc%n\n", &n);
	return n;
}
