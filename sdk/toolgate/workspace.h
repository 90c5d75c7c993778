/*
 * toolgate/workspace.h: opening a file of the workspace whose name the tool
 * computed (tg_workspace_open). The path is relative to /workspace (or
 * starts with "/workspace/"); it is checked here before anything is opened
 * (no "..", no "." or empty components, no other absolute path, at most
 * 1024 bytes, 32 components of 255 bytes), then opened one component at a
 * time with openat and O_NOFOLLOW from /workspace down, so a symbolic link
 * anywhere on the way is refused, not followed. The analyzer allows the
 * call only to a tool holding the workspace capability its constant mode
 * needs (workspace:read for "r", workspace:write for "w", "a" and "+");
 * the sandbox's read-only mount and Landlock stay the real limit. openat,
 * fdopen and close are declared here and allowed only in the SDK's own
 * headers. Part of the SDK, included by <toolgate/tool.h>.
 */
#ifndef TOOLGATE_WORKSPACE_H
#define TOOLGATE_WORKSPACE_H

#include <errno.h>

#include "value.h"

#define TG_WORKSPACE_MAX_PATH 1024   /* bytes of a path */
#define TG_WORKSPACE_MAX_NAME 255    /* bytes of one component */
#define TG_WORKSPACE_MAX_DEPTH 32    /* components of a path */

/* The open flags of Linux (fcntl.h is not an allowed header): the generic
 * values, and those of the architectures that differ for O_DIRECTORY and
 * O_NOFOLLOW. */
#if defined(__aarch64__) || defined(__arm__) || defined(__powerpc__)
#define TG__O_DIRECTORY 040000
#define TG__O_NOFOLLOW 0100000
#elif defined(__x86_64__) || defined(__i386__) || defined(__riscv) || defined(__s390x__) || \
	defined(__loongarch__)
#define TG__O_DIRECTORY 0200000
#define TG__O_NOFOLLOW 0400000
#else
#error "toolgate/workspace.h: the open flags of this architecture are not known"
#endif
#define TG__O_WRONLY 01
#define TG__O_RDWR 02
#define TG__O_CREAT 0100
#define TG__O_TRUNC 01000
#define TG__O_APPEND 02000
#define TG__O_NONBLOCK 04000
#define TG__O_CLOEXEC 02000000
#define TG__AT_FDCWD (-100)

int openat(int dirfd, const char *path, int flags, ...);
int close(int fd);

/* The reason of the last refusal of tg_workspace_open. */
static inline char *tg__workspace_reason(void)
{
	static char reason[160];
	return reason;
}

/* Why tg_workspace_open last returned NULL ("" when it did not). */
static inline const char *tg_workspace_error(void)
{
	return tg__workspace_reason();
}

/* Set the reason (after the quoted component name, when one is given). */
static inline FILE *tg__workspace_refuse(const char *what, const char *name, size_t len)
{
	char *r = tg__workspace_reason();
	if (name)
		snprintf(r, 160, "\"%.*s\" %s", (int)(len < 64 ? len : 64), name, what);
	else
		snprintf(r, 160, "%s", what);
	return NULL;
}

/* The open flags of a mode ("r", "w" or "a", then "+" and "b" in any order,
 * each at most once), or -1. */
static inline int tg__workspace_flags(const char *mode)
{
	int flags, plus = 0, bin = 0;
	if (mode[0] == 'r')
		flags = 0;
	else if (mode[0] == 'w')
		flags = TG__O_WRONLY | TG__O_CREAT | TG__O_TRUNC;
	else if (mode[0] == 'a')
		flags = TG__O_WRONLY | TG__O_CREAT | TG__O_APPEND;
	else
		return -1;
	for (const char *m = mode + 1; *m; m++) {
		if (*m == '+' && !plus)
			plus = 1;
		else if (*m == 'b' && !bin)
			bin = 1;
		else
			return -1;
	}
	if (plus)
		flags = (flags & ~TG__O_WRONLY) | TG__O_RDWR;
	return flags;
}

/* NULL when path names a file under /workspace by the rules above, else the
 * refusal (its reason set). *rel is the path relative to /workspace. */
static inline const char *tg__workspace_check(const char *path, const char **rel)
{
	size_t n = strlen(path), depth = 0;
	const char *p;
	if (n > TG_WORKSPACE_MAX_PATH)
		return "the path is longer than 1024 bytes";
	if (strncmp(path, "/workspace/", 11) == 0)
		path += 11;
	else if (path[0] == '/')
		return "an absolute path outside /workspace: name the file relative to /workspace";
	if (!*path)
		return "the path is empty";
	*rel = path;
	for (p = path;; p++) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 0)
			return "an empty component (a doubled or trailing \"/\")";
		if (len > TG_WORKSPACE_MAX_NAME)
			return "a component is longer than 255 bytes";
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return "a \"..\" component: the file must be under /workspace";
		if (len == 1 && p[0] == '.')
			return "a \".\" component";
		if (++depth > TG_WORKSPACE_MAX_DEPTH)
			return "more than 32 components";
		if (!e)
			return NULL;
		p = e;
	}
}

/*
 * Open the file path of the workspace with an fopen mode; NULL with the
 * reason in tg_workspace_error() when the path is refused or the file cannot
 * be opened. A file opened for writing is created with mode 0644.
 *
 *   FILE *f = tg_workspace_open(tg_arg_str(a, "file", ""), "r");
 *   if (!f) tg_tool_fail("%s: %s", name, tg_workspace_error());
 */
static inline FILE *tg_workspace_open(const char *path, const char *mode)
{
	const char *rel = NULL, *why, *p;
	char name[TG_WORKSPACE_MAX_NAME + 1];
	int flags = mode ? tg__workspace_flags(mode) : -1, dir, fd;
	FILE *f;

	tg__workspace_reason()[0] = '\0';
	if (flags < 0)
		return tg__workspace_refuse("the mode must be r, w or a, then + or b", NULL, 0);
	if (!path)
		return tg__workspace_refuse("the path is empty", NULL, 0);
	why = tg__workspace_check(path, &rel);
	if (why)
		return tg__workspace_refuse(why, NULL, 0);
	dir = openat(TG__AT_FDCWD, "/workspace", TG__O_DIRECTORY | TG__O_CLOEXEC);
	if (dir < 0)
		return tg__workspace_refuse("there is no workspace", NULL, 0);
	for (p = rel;;) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		memcpy(name, p, len);
		name[len] = '\0';
		errno = 0;
		fd = openat(dir, name, e ? TG__O_DIRECTORY | TG__O_NOFOLLOW | TG__O_CLOEXEC
					 : flags | TG__O_NOFOLLOW | TG__O_CLOEXEC, 0644);
		if (fd < 0) {
			int err = errno, link = err == ELOOP;
			if (err == ENOTDIR) { /* a link to a folder, or a file */
				int t = openat(dir, name, TG__O_NOFOLLOW | TG__O_NONBLOCK | TG__O_CLOEXEC);
				link = t < 0 && errno == ELOOP;
				if (t >= 0)
					close(t);
			}
			close(dir);
			if (link)
				return tg__workspace_refuse("is a symbolic link, which is not followed", name, len);
			if (err == ENOENT)
				return tg__workspace_refuse("does not exist", name, len);
			if (err == ENOTDIR)
				return tg__workspace_refuse("is not a folder", name, len);
			if (err == EISDIR)
				return tg__workspace_refuse("is a folder", name, len);
			if (err == EACCES || err == EPERM || err == EROFS)
				return tg__workspace_refuse("cannot be opened: permission denied", name, len);
			return tg__workspace_refuse("cannot be opened", name, len);
		}
		close(dir);
		if (!e)
			break;
		dir = fd;
		p = e + 1;
	}
	f = fdopen(fd, mode);
	if (!f) {
		close(fd);
		return tg__workspace_refuse("the file cannot be opened as a stream", NULL, 0);
	}
	return f;
}

#endif
