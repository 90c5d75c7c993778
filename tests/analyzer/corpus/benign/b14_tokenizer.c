// expect: pass
/* Tokenize an arithmetic expression and evaluate it (+ - * / and parens). */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>

static const char *p;

static double expr(void);

static void skip(void)
{
	while (isspace((unsigned char)*p))
		p++;
}

static double factor(void)
{
	double v;
	char *end;
	skip();
	if (*p == '(') {
		p++;
		v = expr();
		skip();
		if (*p == ')')
			p++;
		return v;
	}
	if (*p == '-') {
		p++;
		return -factor();
	}
	v = strtod(p, &end);
	p = end;
	return v;
}

static double term(void)
{
	double v = factor();
	for (;;) {
		skip();
		if (*p == '*') {
			p++;
			v *= factor();
		} else if (*p == '/') {
			p++;
			v /= factor();
		} else {
			return v;
		}
	}
}

static double expr(void)
{
	double v = term();
	for (;;) {
		skip();
		if (*p == '+') {
			p++;
			v += term();
		} else if (*p == '-') {
			p++;
			v -= term();
		} else {
			return v;
		}
	}
}

int main(void)
{
	char buf[1024];
	if (!fgets(buf, sizeof(buf), stdin))
		return 1;
	p = buf;
	printf("{\"value\":%.10g}\n", expr());
	return 0;
}
