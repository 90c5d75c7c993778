/*
 * common/jsonnum.c: JSON reals spelled the way people write them. jansson
 * prints every real with "%.17g", so a manifest's 0.77 comes back as
 * 0.77000000000000002. tg_json_format_real gives the shortest text that
 * strtod reads back as the same double (0.77, 1e300, 5e-324), and keeps a
 * real a real (2.0, not 2). tg_json_shorten_reals rewrites the real tokens
 * of a JSON text that way and leaves everything else (strings, integers,
 * layout) byte for byte: tg_json_dump runs jansson's output through it.
 *
 * Hashes never see this spelling: the approval hash (registry/approval.c)
 * and the call-approval binding serialise with jansson directly, so their
 * canonical form is the same before and after this file existed. Both
 * functions assume the "C" numeric locale, which toolgate never changes.
 */
#include "common.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "%.*g" of d, when it reads back as exactly d. */
static int try_precision(char *buf, size_t size, double d, int prec)
{
	int n = snprintf(buf, size, "%.*g", prec, d);

	if (n < 0 || (size_t)n >= size)
		return 0;
	return strtod(buf, NULL) == d;
}

int tg_json_format_real(char *buf, size_t size, double d)
{
	int prec, found = 0;
	char *e;
	size_t n;

	if (!isfinite(d) || size < 32)
		return tg_error_set(TG_ERR_INVALID, "not a finite JSON number");
	if (d != 0 && fabs(d) < DBL_MIN) {
		/* subnormal: fewer significant bits than DBL_DIG promises */
		for (prec = 1; prec <= 17 && !found; prec++)
			found = try_precision(buf, size, d, prec);
	} else {
		/* a normal double whose shortest spelling has at most DBL_DIG (15)
		 * digits prints as exactly that spelling with %.15g */
		for (prec = DBL_DIG; prec <= 17 && !found; prec++)
			found = try_precision(buf, size, d, prec);
	}
	if (!found) /* %.17g always reads back; kept for safety */
		snprintf(buf, size, "%.17g", d);
	/* the exponent as jansson writes it: no '+', no leading zeros (1e300) */
	if ((e = strchr(buf, 'e'))) {
		char *to = e + 1 + (e[1] == '-'), *from = e + 1 + (e[1] == '-' || e[1] == '+');
		while (*from == '0' && from[1])
			from++;
		memmove(to, from, strlen(from) + 1);
	}
	/* "2" would read back as an integer: a real keeps a fraction part */
	n = strcspn(buf, ".eEni");
	if (!buf[n]) {
		if (n + 3 > size)
			return tg_error_set(TG_ERR_LIMIT, "number buffer too small");
		memcpy(buf + n, ".0", 3);
	}
	return 0;
}

static int is_num_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

char *tg_json_shorten_reals(const char *text)
{
	TG_CLEANUP(tg_buf_freep) tg_buf b = TG_BUF_INIT(0);
	const char *p = text, *run = text;
	int in_str = 0;

	if (!text)
		return NULL;
	while (*p) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = 0;
			p++;
			continue;
		}
		if (*p == '"') {
			in_str = 1;
			p++;
			continue;
		}
		if (*p == '-' || (*p >= '0' && *p <= '9')) {
			const char *end = p;
			char tok[64], num[40];
			size_t len;
			while (is_num_char(*end))
				end++;
			len = (size_t)(end - p);
			if (strcspn(p, ".eE") < len && len < sizeof(tok)) {
				char *stop;
				double d;
				memcpy(tok, p, len);
				tok[len] = '\0';
				d = strtod(tok, &stop);
				if (*stop == '\0' && tg_json_format_real(num, sizeof(num), d) == 0) {
					if (tg_buf_append(&b, run, (size_t)(p - run)) < 0 ||
					    tg_buf_puts(&b, num) < 0)
						return NULL;
					run = end;
				} else {
					tg_error_clear();
				}
			}
			p = end;
			continue;
		}
		p++;
	}
	if (tg_buf_append(&b, run, (size_t)(p - run)) < 0)
		return NULL;
	return tg_buf_detach(&b, NULL);
}
