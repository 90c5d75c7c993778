/*
 * store/git_dl.c: loads libgit2 with dlopen() on first use and fills the
 * table of git_* pointers declared in git_dl.h. The path is the one found at
 * configure time (TG_LIBGIT2_PATH), else the soname.
 */
#define TG_GIT_DL_IMPL
#include "git_dl.h"

#include "common/common.h"

struct tg_git_api tg_git_api;

#define TG_DL_NAME(f) #f,
#define TG_DL_SLOT(f) (void **)&tg_git_api.f,
static const char *const names[] = { TG_GIT_FUNCTIONS(TG_DL_NAME) };
static void **const slots[] = { TG_GIT_FUNCTIONS(TG_DL_SLOT) };
#undef TG_DL_NAME
#undef TG_DL_SLOT

static tg_dl_lib lib = TG_DL_LIB("libgit2", TG_LIBGIT2_PATH, TG_LIBGIT2_SONAME, names, slots);

int tg_git_load(void)
{
	return tg_dl_need(&lib);
}
