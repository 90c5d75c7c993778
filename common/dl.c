/*
 * common/dl.c: loading a shared library on first use and resolving a table
 * of its functions (the analyzer's libclang and the store's libgit2 are
 * loaded this way, so commands that never use them do not pay for loading);
 * tg_dl_need does it once per process for a tg_dl_lib.
 */
#include "common.h"

#include <dlfcn.h>
#include <string.h>

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

int tg_dl_need(tg_dl_lib *lib)
{
	int state = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);

	if (state == 0) {
		pthread_mutex_lock(&lib->lock);
		state = lib->state;
		if (state == 0) {
			state = tg_dl_load(lib->path, lib->fallback, lib->names, lib->slots, lib->n);
			if (state < 0)
				snprintf(lib->error, sizeof(lib->error), "%s",
					 tg_error_last()->message);
			else
				state = 1;
			__atomic_store_n(&lib->state, state, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&lib->lock);
	}
	if (state < 0)
		return tg_error_set(state, "%s: %s", lib->label, lib->error);
	return 0;
}
