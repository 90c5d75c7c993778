/*
 * analyzer/clang_dl.c: loads libclang with dlopen() on first use and fills
 * the table of clang_* pointers declared in clang_dl.h. The path is the one
 * found at configure time (TG_LIBCLANG_PATH), else the soname.
 */
#define TG_CLANG_DL_IMPL
#include "clang_dl.h"

#include "common/common.h"

struct tg_clang_api tg_clang_api;

#define TG_DL_NAME(f) #f,
#define TG_DL_SLOT(f) (void **)&tg_clang_api.f,
static const char *const names[] = { TG_CLANG_FUNCTIONS(TG_DL_NAME) };
static void **const slots[] = { TG_CLANG_FUNCTIONS(TG_DL_SLOT) };
#undef TG_DL_NAME
#undef TG_DL_SLOT

static tg_dl_lib lib = TG_DL_LIB("libclang", TG_LIBCLANG_PATH, "libclang-14.so.1", names, slots);

int tg_clang_load(void)
{
	return tg_dl_need(&lib);
}
