/*
 * mcp/mhd_dl.c: loads libmicrohttpd with dlopen() on first use and fills the
 * table declared in mhd_dl.h (path found at configure time, else the soname).
 */
#define TG_MHD_DL_IMPL
#include "mhd_dl.h"

#include "common/common.h"

#include <pthread.h>
#include <string.h>

struct tg_mhd_api tg_mhd_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_code;
static char load_error[sizeof(((tg_error *)0)->message)];

static void load(void)
{
#define TG_DL_NAME(f) #f,
#define TG_DL_SLOT(f) (void **)&tg_mhd_api.f,
	static const char *const names[] = { TG_MHD_FUNCTIONS(TG_DL_NAME) };
	void **const slots[] = { TG_MHD_FUNCTIONS(TG_DL_SLOT) };
#undef TG_DL_NAME
#undef TG_DL_SLOT

	load_code = tg_dl_load(TG_MHD_PATH, TG_MHD_SONAME, names, slots, TG_ARRAY_SIZE(names));
	if (load_code < 0)
		memcpy(load_error, tg_error_last()->message, sizeof(load_error));
}

int tg_mhd_load(void)
{
	pthread_once(&load_once, load);
	if (load_code)
		return tg_error_set(load_code, "libmicrohttpd (apt install libmicrohttpd12): %s",
				    load_error);
	return 0;
}
