/*
 * store/validate.c: everything the store checks before it turns caller
 * input into a ref name, a tree entry or a commit message: tool names (the
 * common rule, so no name can leave refs/tools/ or refs/active/), file
 * names, trailer keys and values, one-line texts; plus the mapping of
 * libgit2 errors to TG_ERR_* codes.
 */
#include "store_internal.h"

#include <string.h>
#include <strings.h>

int st_git_fail(int gitcode, const char *fmt, ...)
{
	const git_error *e = git_error_last();
	char what[512];
	va_list ap;
	int code;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	switch (gitcode) {
	case GIT_ENOTFOUND:
		code = TG_ERR_NOTFOUND;
		break;
	case GIT_EEXISTS:
		code = TG_ERR_EXISTS;
		break;
	case GIT_EMODIFIED:
	case GIT_ELOCKED:
		code = TG_ERR_CONFLICT;
		break;
	case GIT_EINVALIDSPEC:
	case GIT_EINVALID:
		code = TG_ERR_INVALID;
		break;
	default:
		code = TG_ERR_IO;
		break;
	}
	return tg_error_set(code, "%s: %s", what,
			    e && e->message && *e->message ? e->message : "libgit2 error");
}

int st_check_tool(const char *tool)
{
	if (!tool || !tg_name_valid(tool))
		return tg_error_set(TG_ERR_INVALID,
				    "invalid tool name \"%.80s\": must match ^[a-z][a-z0-9_]{0,63}$",
				    tool ? tool : "(null)");
	return 0;
}

int st_check_file_name(const char *name)
{
	size_t i, n;

	if (!name || !*name)
		return tg_error_set(TG_ERR_INVALID, "empty file name");
	n = strlen(name);
	if (n > ST_MAX_FILE_NAME)
		return tg_error_set(TG_ERR_LIMIT, "file name longer than %u bytes", ST_MAX_FILE_NAME);
	for (i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return tg_error_set(TG_ERR_INVALID,
					    "invalid file name \"%.80s\": only [A-Za-z0-9._-] allowed", name);
	}
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return tg_error_set(TG_ERR_INVALID, "invalid file name \"%s\"", name);
	/* git fsck rejects .git (any case) as a tree entry; keep clear of it. */
	if (!strncasecmp(name, ".git", 4))
		return tg_error_set(TG_ERR_INVALID, "invalid file name \"%.80s\": reserved by git", name);
	return 0;
}

int st_check_line(const char *what, const char *s, size_t max, int allow_empty)
{
	size_t n, i;

	if (!s)
		return tg_error_set(TG_ERR_INVALID, "%s: missing", what);
	n = strlen(s);
	if (!n && !allow_empty)
		return tg_error_set(TG_ERR_INVALID, "%s: empty", what);
	if (n > max)
		return tg_error_set(TG_ERR_LIMIT, "%s: longer than %zu bytes", what, max);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 && c != '\t')
			return tg_error_set(TG_ERR_INVALID, "%s: must be one line without control characters", what);
		if (c == 0x7f)
			return tg_error_set(TG_ERR_INVALID, "%s: must not contain DEL", what);
	}
	if (tg_utf8_valid(s, n) != 0)
		return tg_error_set(TG_ERR_INVALID, "%s: not valid UTF-8", what);
	return 0;
}

int st_check_trailer(const char *key, const char *value)
{
	size_t i, n;
	int rc;

	if (!key || !*key)
		return tg_error_set(TG_ERR_INVALID, "trailer key: empty");
	n = strlen(key);
	if (n > ST_MAX_TRAILER_KEY)
		return tg_error_set(TG_ERR_LIMIT, "trailer key: longer than %u bytes", ST_MAX_TRAILER_KEY);
	if (!((key[0] >= 'a' && key[0] <= 'z') || (key[0] >= 'A' && key[0] <= 'Z')))
		return tg_error_set(TG_ERR_INVALID, "trailer key \"%.64s\": must start with a letter", key);
	for (i = 0; i < n; i++) {
		char c = key[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'))
			return tg_error_set(TG_ERR_INVALID, "trailer key \"%.64s\": only [A-Za-z0-9-] allowed", key);
	}
	if (!strcasecmp(key, ST_VERSION_KEY))
		return tg_error_set(TG_ERR_INVALID, "trailer key %s is written by the store", ST_VERSION_KEY);
	if ((rc = st_check_line("trailer value", value, ST_MAX_TRAILER_VALUE, 0)) < 0)
		return tg_error_prefix("%s", key);
	n = strlen(value);
	if (value[0] == ' ' || value[0] == '\t' || value[n - 1] == ' ' || value[n - 1] == '\t')
		return tg_error_set(TG_ERR_INVALID, "%s: trailer value must not start or end with blanks", key);
	return 0;
}

void st_ref_name(char *buf, size_t size, const char *prefix, const char *tool)
{
	snprintf(buf, size, "%s%s", prefix, tool);
}
