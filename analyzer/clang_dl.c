/*
 * analyzer/clang_dl.c: loads libclang with dlopen() on first use and fills
 * the table of clang_* pointers declared in clang_dl.h. The path is the one
 * found at configure time (TG_LIBCLANG_PATH), else the soname.
 */
#define TG_CLANG_DL_IMPL
#include "clang_dl.h"

#include "common/common.h"

#include <dlfcn.h>
#include <pthread.h>

struct tg_clang_api tg_clang_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_code;
static char load_error[512];

static void load(void)
{
	void *h = dlopen(TG_LIBCLANG_PATH, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		h = dlopen("libclang-14.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(load_error, sizeof(load_error), "cannot load %s: %s", TG_LIBCLANG_PATH,
			 dlerror());
		load_code = TG_ERR_UNAVAILABLE;
		return;
	}
#define TG_CLANG_RESOLVE(f)                                                              \
	*(void **)&tg_clang_api.f = dlsym(h, #f);                                        \
	if (!tg_clang_api.f) {                                                           \
		snprintf(load_error, sizeof(load_error), "%s lacks %s", TG_LIBCLANG_PATH, #f); \
		load_code = TG_ERR_UNAVAILABLE;                                          \
		return;                                                                  \
	}
	TG_CLANG_FUNCTIONS(TG_CLANG_RESOLVE)
#undef TG_CLANG_RESOLVE
}

int tg_clang_load(void)
{
	pthread_once(&load_once, load);
	if (load_code)
		return tg_error_set(load_code, "libclang: %s", load_error);
	return 0;
}
