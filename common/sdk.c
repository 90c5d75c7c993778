/*
 * common/sdk.c: where the tool SDK header (toolgate/tool.h) is. An installed
 * binary finds it relative to its own location (/proc/self/exe): from
 * PREFIX/bin/toolgate, PREFIX/share/toolgate/include, the layout `make
 * install PREFIX=...` and the Debian package give, wherever PREFIX is and
 * whatever prefix the build was configured with. Only the binary still in
 * its build tree uses the source tree's sdk/. A missing SDK is an
 * environment error (TG_ERR_UNAVAILABLE, exit 3) that names where it was
 * looked for, so no caller mistakes it for a problem of the tool.
 */
#include "common/common.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int has_header(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(p, sizeof(p), "%s/toolgate/tool.h", dir) >= sizeof(p))
		return 0;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int tg_sdk_dir(char **out)
{
	char exe[PATH_MAX], dir[PATH_MAX];
	ssize_t n;
	char *slash;
	size_t bl = strlen(TG_BUILD_DIR);

	*out = NULL;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return tg_error_set(TG_ERR_UNAVAILABLE, "SDK header: cannot read /proc/self/exe "
						       "(is /proc mounted?)");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return tg_error_set(TG_ERR_UNAVAILABLE, "SDK header: odd executable path %s", exe);
	*slash = '\0';
	if (strncmp(exe, TG_BUILD_DIR, bl) == 0 && (exe[bl] == '/' || exe[bl] == '\0') &&
	    has_header(TG_SOURCE_SDK_DIR)) {
		*out = strdup(TG_SOURCE_SDK_DIR);
		return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", exe, TG_BIN_TO_SDK) >= sizeof(dir))
		return tg_error_set(TG_ERR_UNAVAILABLE, "SDK header: path too long");
	if (!has_header(dir))
		return tg_error_set(TG_ERR_UNAVAILABLE, "SDK header missing: %s/toolgate/tool.h "
						       "(beside the binary %s/): reinstall toolgate",
				    dir, exe);
	*out = realpath(dir, NULL);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}
