// expect: format_string
// finding: format_string: vfprintf: the format must be a string literal
/* a wrapper that replaces its format parameter before passing it on */
#include <stdarg.h>
#include <stdio.h>
static const char *const evil = "%n";
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fmt = evil;
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
int main(void)
{
	int n = 0;
	say("%d\n", &n);
	return n;
}
