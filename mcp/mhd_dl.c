/*
 * mcp/mhd_dl.c: loads libmicrohttpd with dlopen() on first use and fills the
 * table declared in mhd_dl.h (path found at configure time, else the soname).
 */
#define TG_MHD_DL_IMPL
#include "mhd_dl.h"

#include "common/common.h"

struct tg_mhd_api tg_mhd_api;

#define TG_DL_NAME(f) #f,
#define TG_DL_SLOT(f) (void **)&tg_mhd_api.f,
static const char *const names[] = { TG_MHD_FUNCTIONS(TG_DL_NAME) };
static void **const slots[] = { TG_MHD_FUNCTIONS(TG_DL_SLOT) };
#undef TG_DL_NAME
#undef TG_DL_SLOT

static tg_dl_lib lib = TG_DL_LIB("libmicrohttpd (apt install libmicrohttpd12)", TG_MHD_PATH, TG_MHD_SONAME, names, slots);

int tg_mhd_load(void)
{
	return tg_dl_need(&lib);
}
