/*
 * store/git_dl.c: loads libgit2 with dlopen() on first use and fills the
 * table of git_* pointers declared in git_dl.h. The path is the one found at
 * configure time (TG_LIBGIT2_PATH), else the soname.
 */
#define TG_GIT_DL_IMPL
#include "git_dl.h"

#include "common/common.h"

#include <dlfcn.h>
#include <pthread.h>

struct tg_git_api tg_git_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_code;
static char load_error[512];

static void load(void)
{
	void *h = dlopen(TG_LIBGIT2_PATH, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		h = dlopen(TG_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(load_error, sizeof(load_error), "cannot load %s: %s", TG_LIBGIT2_PATH,
			 dlerror());
		load_code = TG_ERR_UNAVAILABLE;
		return;
	}
#define TG_GIT_RESOLVE(f)                                                                \
	*(void **)&tg_git_api.f = dlsym(h, #f);                                          \
	if (!tg_git_api.f) {                                                             \
		snprintf(load_error, sizeof(load_error), "%s lacks %s", TG_LIBGIT2_PATH, #f); \
		load_code = TG_ERR_UNAVAILABLE;                                          \
		return;                                                                  \
	}
	TG_GIT_FUNCTIONS(TG_GIT_RESOLVE)
#undef TG_GIT_RESOLVE
}

int tg_git_load(void)
{
	pthread_once(&load_once, load);
	if (load_code)
		return tg_error_set(load_code, "libgit2: %s", load_error);
	return 0;
}
