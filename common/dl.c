/*
 * common/dl.c: loading a shared library on first use and resolving a table
 * of its functions (the analyzer's libclang and the store's libgit2 are
 * loaded this way, so commands that never use them do not pay for loading).
 */
#include "common.h"

#include <dlfcn.h>

int tg_dl_load(const char *path, const char *fallback, const char *const *names,
	       void **const *slots, size_t n)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h && fallback)
		h = dlopen(fallback, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return tg_error_set(TG_ERR_UNAVAILABLE, "cannot load %s: %s", path, dlerror());
	for (i = 0; i < n; i++) {
		*slots[i] = dlsym(h, names[i]);
		if (!*slots[i])
			return tg_error_set(TG_ERR_UNAVAILABLE, "%s lacks %s", path, names[i]);
	}
	return 0;
}
