/*
 * store/git_dl.c: loads libgit2 with dlopen() on first use and fills the
 * table of git_* pointers declared in git_dl.h. The path is the one found at
 * configure time (TG_LIBGIT2_PATH), else the soname.
 */
#define TG_GIT_DL_IMPL
#include "git_dl.h"

#include "common/common.h"

#include <pthread.h>
#include <string.h>

struct tg_git_api tg_git_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_code;
static char load_error[sizeof(((tg_error *)0)->message)];

static void load(void)
{
#define TG_DL_NAME(f) #f,
#define TG_DL_SLOT(f) (void **)&tg_git_api.f,
	static const char *const names[] = { TG_GIT_FUNCTIONS(TG_DL_NAME) };
	void **const slots[] = { TG_GIT_FUNCTIONS(TG_DL_SLOT) };
#undef TG_DL_NAME
#undef TG_DL_SLOT

	load_code = tg_dl_load(TG_LIBGIT2_PATH, TG_LIBGIT2_SONAME, names, slots,
			       TG_ARRAY_SIZE(names));
	if (load_code < 0)
		memcpy(load_error, tg_error_last()->message, sizeof(load_error));
}

int tg_git_load(void)
{
	pthread_once(&load_once, load);
	if (load_code)
		return tg_error_set(load_code, "libgit2: %s", load_error);
	return 0;
}
