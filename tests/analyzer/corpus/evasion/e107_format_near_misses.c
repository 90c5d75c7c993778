// expect: pass
/* not %n: an escaped percent before n, n alone, %n-like text outside a format, a wrapper that only forwards, a literal through a cast and a ternary-free macro */
#include <stdarg.h>
#include <stdio.h>
#define GREETING "%s, n%%n\n"
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
int main(void)
{
	char buf[32];
	printf("100%%n\n");
	printf("%%%%n %d\n", 1);
	printf("n\n");
	puts("%n is not a format here");
	snprintf(buf, sizeof(buf), (const char *)"%d%%n", 7);
	printf(GREETING, buf);
	say("%s %d\n", "x", 2);
	return 0;
}
