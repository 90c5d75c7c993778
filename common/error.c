/*
 * common/error.c: the thread-local last error (code + message) that every
 * module sets when it returns a negative code, and the mapping from codes to
 * the exit statuses of docs/CONTRACTS.md.
 */
#include "common.h"

#include <errno.h>
#include <string.h>

static _Thread_local tg_error last_error;

int tg_error_setv(int code, const char *fmt, va_list ap)
{
	last_error.code = code;
	vsnprintf(last_error.message, sizeof(last_error.message), fmt, ap);
	return code;
}

int tg_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tg_error_setv(code, fmt, ap);
	va_end(ap);
	return code;
}

int tg_error_errno(int code, int errnum, const char *fmt, ...)
{
	va_list ap;
	char what[768];
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tg_error_set(code, "%s: %s", what, strerror(errnum));
}

int tg_error_prefix(const char *fmt, ...)
{
	va_list ap;
	char prefix[512];
	size_t pl, ml, cap = sizeof(last_error.message);
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	pl = strlen(prefix);
	ml = strlen(last_error.message);
	if (ml) {
		/* "prefix: old", the old message cut at the end if need be */
		if (pl + 2 + ml >= cap)
			ml = cap - 1 - pl - 2;
		memmove(last_error.message + pl + 2, last_error.message, ml);
		last_error.message[pl + 2 + ml] = '\0';
		memcpy(last_error.message, prefix, pl);
		last_error.message[pl] = ':';
		last_error.message[pl + 1] = ' ';
	} else {
		memcpy(last_error.message, prefix, pl + 1);
	}
	if (last_error.code == 0)
		last_error.code = TG_ERR;
	return last_error.code;
}

const tg_error *tg_error_last(void)
{
	return &last_error;
}

void tg_error_clear(void)
{
	last_error.code = 0;
	last_error.message[0] = '\0';
}

int tg_error_exit_status(int code)
{
	switch (code) {
	case TG_OK:
		return 0;
	case TG_ERR_INVALID:
	case TG_ERR_NOTFOUND:
	case TG_ERR_EXISTS:
	case TG_ERR_LIMIT:
		return 2;
	case TG_ERR_DENIED:
		return 1;
	default:
		return 3;
	}
}

const char *tg_error_code_name(int code)
{
	switch (code) {
	case TG_OK: return "ok";
	case TG_ERR_INVALID: return "invalid";
	case TG_ERR_NOTFOUND: return "not_found";
	case TG_ERR_EXISTS: return "exists";
	case TG_ERR_LIMIT: return "limit";
	case TG_ERR_CONFLICT: return "conflict";
	case TG_ERR_IO: return "io";
	case TG_ERR_NOMEM: return "nomem";
	case TG_ERR_UNAVAILABLE: return "unavailable";
	case TG_ERR_INTERNAL: return "internal";
	case TG_ERR_DENIED: return "denied";
	default: return "error";
	}
}

void tg_freep(void *p)
{
	free(*(void **)p);
}

void tg_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		*fd = -1; /* a second call closes nothing (the number may be another's by then) */
		errno = saved;
	}
}

void tg_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

void tg_json_decrefp(json_t **j)
{
	json_decref(*j);
}
