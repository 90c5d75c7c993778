/*
 * analyzer/vfs.c: the virtual sysroot the parser sees. The overlay itself is
 * written by common/cfront.c, because the build compiles in the very same
 * one: 'fallthrough': false makes the real file system invisible to clang,
 * only the curated entries exist (the compiler's own headers, the glibc
 * headers that the allowlisted headers pull in, the tool SDK). An include of
 * anything else - /etc/passwd, /dev/stdin, a FIFO - is "file not found"
 * without an open(). The pre-scan refuses such includes before the parse;
 * this is the second wall. Here: which SDK folder is used.
 */
#include "internal.h"

#include <string.h>
#include <sys/stat.h>

static int has_sdk(const char *dir)
{
	char path[4096];
	struct stat st;
	if (snprintf(path, sizeof(path), "%s/toolgate/tool.h", dir) >= (int)sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *tg_vfs_sdk_dir(const tg_analyze_opts *opts)
{
	static _Thread_local char *found; /* tg_sdk_dir, once per thread */

	if (opts && opts->sdk_include_dir)
		return opts->sdk_include_dir;
	if (!found && tg_sdk_dir(&found) < 0)
		tg_error_clear();
	if (found && has_sdk(found))
		return found;
	return TG_SOURCE_DATADIR;
}

int tg_vfs_yaml(char **out, const char *sdk_dir)
{
	return tg_cfront_overlay(out, sdk_dir, 0);
}
