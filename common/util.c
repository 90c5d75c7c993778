/*
 * common/util.c: tool-name and UTF-8 validation, the home folder's
 * resolution order of docs/CONTRACTS.md, and clocks.
 */
#include "common.h"

#include <string.h>
#include <time.h>

int tg_name_valid(const char *name)
{
	size_t i;

	if (!name || !(name[0] >= 'a' && name[0] <= 'z'))
		return 0;
	for (i = 1; name[i]; i++) {
		char c = name[i];
		if (i >= 64)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

void tg_str_printable(char *out, size_t outsz, const char *s, size_t max_in)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, j = 0;

	if (!outsz)
		return;
	for (i = 0; s && s[i] && i < max_in; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			if (j + 4 >= outsz)
				break;
			out[j++] = '\\';
			out[j++] = 'x';
			out[j++] = hex[c >> 4];
			out[j++] = hex[c & 15];
		} else {
			if (j + 1 >= outsz)
				break;
			out[j++] = (char)c;
		}
	}
	out[j] = '\0';
}

/* Length of the valid UTF-8 sequence at s (1..4) within avail bytes, 0 if
 * invalid or cut. */
static size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	size_t n, k;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 1;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 2;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 3;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n >= avail)
		return 0;
	for (k = 1; k <= n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n + 1;
}

void tg_str_utf8_repair(char *s)
{
	unsigned char *u = (unsigned char *)s;
	size_t left = strlen(s);

	while (left > 0) {
		size_t n = utf8_seq_len(u, left);
		if (n == 0) {
			*u = '?';
			n = 1;
		}
		u += n;
		left -= n;
	}
}

int tg_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		size_t n = s[i] ? utf8_seq_len(s + i, len - i) : 0;
		if (n == 0)
			return -1;
		i += n;
	}
	return 0;
}

int tg_home_resolve(char **out, const char *flag)
{
	const char *env;
	char *p = NULL;

	*out = NULL;
	if (flag && *flag)
		p = strdup(flag);
	else if ((env = getenv("TOOLGATE_HOME")) && *env)
		p = strdup(env);
	else if ((env = getenv("XDG_DATA_HOME")) && *env)
		p = tg_path_join(env, "toolgate");
	else if ((env = getenv("HOME")) && *env)
		p = tg_path_join(env, ".local/share/toolgate");
	else
		return tg_error_set(TG_ERR_INVALID, "no home: pass --home or set TOOLGATE_HOME");
	if (!p)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*out = p;
	return 0;
}

uint64_t tg_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int64_t tg_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + (int64_t)ts.tv_nsec / 1000000;
}

int64_t tg_time_now(void)
{
	return (int64_t)time(NULL);
}
