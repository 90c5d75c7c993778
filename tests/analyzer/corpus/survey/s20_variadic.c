// expect: pass
/* refused before issue 14 -- include: <stdarg.h> was outside the include allowlist */
/* survey: a variadic function of the tool's own (stdarg.h) */
#include <stdarg.h>
#include <stdio.h>
static int sum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
static void logf_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
int main(void)
{
	int s = sum(4, 1, 2, 3, 4);
	if (s != 10)
		logf_err("bad sum %d\n", s);
	printf("{\"sum\":%d}\n", s);
	return 0;
}
