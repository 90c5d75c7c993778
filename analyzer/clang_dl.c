/*
 * analyzer/clang_dl.c: loads libclang with dlopen() on first use and fills
 * the table of clang_* pointers declared in clang_dl.h. The path is the one
 * found at configure time (TG_LIBCLANG_PATH), else the soname.
 */
#define TG_CLANG_DL_IMPL
#include "clang_dl.h"

#include "common/common.h"

#include <pthread.h>
#include <string.h>

struct tg_clang_api tg_clang_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_code;
static char load_error[sizeof(((tg_error *)0)->message)];

static void load(void)
{
#define TG_DL_NAME(f) #f,
#define TG_DL_SLOT(f) (void **)&tg_clang_api.f,
	static const char *const names[] = { TG_CLANG_FUNCTIONS(TG_DL_NAME) };
	void **const slots[] = { TG_CLANG_FUNCTIONS(TG_DL_SLOT) };
#undef TG_DL_NAME
#undef TG_DL_SLOT

	load_code = tg_dl_load(TG_LIBCLANG_PATH, "libclang-14.so.1", names, slots,
			       TG_ARRAY_SIZE(names));
	if (load_code < 0)
		memcpy(load_error, tg_error_last()->message, sizeof(load_error));
}

int tg_clang_load(void)
{
	pthread_once(&load_once, load);
	if (load_code)
		return tg_error_set(load_code, "libclang: %s", load_error);
	return 0;
}
