/*
 * registry/schema/schema_format.c: the formats that toolgate can assert
 * (TG_SCHEMA_ASSERT_FORMAT; by default `format` is an annotation): date,
 * time and date-time as RFC 3339 (a real calendar date, leap years, a
 * second of 60 allowed, an offset "Z" or +hh:mm), email as an RFC 5321
 * mailbox of a dot-atom local part and a host name or bracketed IP, ipv4 as
 * four decimal octets without leading zeros, ipv6 as RFC 4291 text
 * (inet_pton, no zone), uuid as RFC 4122 text (8-4-4-4-12 hex digits), uri
 * as an absolute RFC 3986 URI (a scheme, then only URI characters and
 * well-formed percent escapes). Any other format name is an annotation.
 */
#include "registry/schema/schema_int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

static const char *const names[] = {
	[TG_F_DATE] = "date",   [TG_F_TIME] = "time", [TG_F_DATE_TIME] = "date-time",
	[TG_F_EMAIL] = "email", [TG_F_IPV4] = "ipv4", [TG_F_IPV6] = "ipv6",
	[TG_F_UUID] = "uuid",   [TG_F_URI] = "uri",
};

int tg_sformat_id(const char *name)
{
	for (int i = 1; i < (int)TG_ARRAY_SIZE(names); i++)
		if (!strcmp(names[i], name))
			return i;
	return TG_F_NONE;
}

const char *tg_sformat_name(int id)
{
	return id > 0 && id < (int)TG_ARRAY_SIZE(names) ? names[id] : "format";
}

/* n decimal digits at s into *out. */
static int digits(const char *s, int n, int *out)
{
	*out = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		*out = *out * 10 + (s[i] - '0');
	}
	return 1;
}

static int is_date(const char *s, size_t len)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y, m, d;
	if (len != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &y) || !digits(s + 5, 2, &m) ||
	    !digits(s + 8, 2, &d) || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return 0;
	return !(m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
}

static int is_time(const char *s, size_t len)
{
	int h, m, sec, oh = 0, om = 0;
	size_t i = 8;
	if (len < 9 || s[2] != ':' || s[5] != ':' || !digits(s, 2, &h) || !digits(s + 3, 2, &m) ||
	    !digits(s + 6, 2, &sec) || h > 23 || m > 59 || sec > 60)
		return 0;
	if (s[i] == '.') {
		size_t start = ++i;
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		if (i == start)
			return 0;
	}
	if (i + 1 == len && (s[i] == 'Z' || s[i] == 'z'))
		return sec < 60 || (h == 23 && m == 59);
	if (i + 6 != len || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':' ||
	    !digits(s + i + 1, 2, &oh) || !digits(s + i + 4, 2, &om) || oh > 23 || om > 59)
		return 0;
	if (sec == 60) { /* a leap second is 23:59:60 in UTC */
		int utc = h * 60 + m + (s[i] == '+' ? -(oh * 60 + om) : oh * 60 + om);
		utc = ((utc % 1440) + 1440) % 1440;
		return utc == 23 * 60 + 59;
	}
	return 1;
}

static int is_hostname(const char *s, size_t len)
{
	size_t label = 0;
	if (len == 0 || len > 253)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
		} else if (isalnum(ch) || (ch == '-' && label > 0)) {
			if (++label > 63)
				return 0;
		} else {
			return 0;
		}
	}
	return label > 0 && s[len - 1] != '-';
}

static int is_ip(int af, const char *s, size_t len)
{
	char buf[64];
	unsigned char out[16];
	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(af, buf, out) == 1;
}

static int is_email(const char *s, size_t len)
{
	const char *at = memchr(s, '@', len);
	size_t local, i;
	if (!at || memchr(at + 1, '@', len - (size_t)(at - s) - 1))
		return 0;
	local = (size_t)(at - s);
	if (local == 0 || local > 64 || s[0] == '.' || s[local - 1] == '.')
		return 0;
	for (i = 0; i < local; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (!(isalnum(ch) || strchr("!#$%&'*+/=?^_`{|}~-.", ch)) || ch == '\0' ||
		    (ch == '.' && s[i + 1] == '.'))
			return 0;
	}
	s = at + 1;
	len -= local + 1;
	if (len > 2 && s[0] == '[' && s[len - 1] == ']') {
		if (len > 7 && !strncmp(s + 1, "IPv6:", 5))
			return is_ip(AF_INET6, s + 6, len - 7);
		return is_ip(AF_INET, s + 1, len - 2);
	}
	return is_hostname(s, len);
}

static int is_ipv4(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '0' && (i == 0 || s[i - 1] == '.') && i + 1 < len && isdigit((unsigned char)s[i + 1]))
			return 0; /* a leading zero: octal in some parsers */
	return is_ip(AF_INET, s, len);
}

static int is_uuid(const char *s, size_t len)
{
	if (len != 36)
		return 0;
	for (size_t i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int is_uri(const char *s, size_t len)
{
	size_t i = 0;
	if (len == 0 || !isalpha((unsigned char)s[0]))
		return 0;
	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
		i++;
	if (i == len || s[i] != ':')
		return 0;
	for (i++; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '%') {
			if (i + 2 >= len || !isxdigit((unsigned char)s[i + 1]) || !isxdigit((unsigned char)s[i + 2]))
				return 0;
		} else if (!(isalnum(ch) || strchr("-._~:/?#[]@!$&'()*+,;=", ch)) || ch == '\0') {
			return 0;
		}
	}
	return 1;
}

int tg_sformat_check(int id, const char *s, size_t len)
{
	const char *t;
	switch (id) {
	case TG_F_DATE: return is_date(s, len);
	case TG_F_TIME: return is_time(s, len);
	case TG_F_DATE_TIME:
		t = len > 10 ? s + 10 : NULL;
		return t && (*t == 'T' || *t == 't') && is_date(s, 10) && is_time(t + 1, len - 11);
	case TG_F_EMAIL: return is_email(s, len);
	case TG_F_IPV4: return is_ipv4(s, len);
	case TG_F_IPV6: return is_ip(AF_INET6, s, len);
	case TG_F_UUID: return is_uuid(s, len);
	case TG_F_URI: return is_uri(s, len);
	default: return 1;
	}
}
