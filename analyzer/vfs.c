/*
 * analyzer/vfs.c: the virtual sysroot the parser sees. An -ivfsoverlay YAML
 * with 'fallthrough': false makes the real file system invisible to clang:
 * only the curated entries below exist (the compiler's own headers, the
 * glibc headers that the allowlisted headers pull in, the tool SDK). An
 * include of anything else - /etc/passwd, /dev/stdin, a FIFO - is "file not
 * found" without an open(). The pre-scan refuses such includes before the
 * parse; this is the second wall.
 */
#include "internal.h"

#include <string.h>
#include <sys/stat.h>

#ifndef TG_CLANG_RESOURCE_INCLUDE
#error "analyzer/CMakeLists.txt must define TG_CLANG_RESOURCE_INCLUDE"
#endif

#if defined(__x86_64__)
#define TG_MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define TG_MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define TG_MULTIARCH "i386-linux-gnu"
#else
#define TG_MULTIARCH "unknown-linux-gnu"
#endif

/* Top-level glibc headers reachable from the allowlisted ones (with any
 * feature-test macro); found with clang -M. */
static const char *const top_files[] = {
	"alloca.h", "assert.h", "ctype.h", "endian.h", "errno.h", "features-time64.h",
	"features.h", "inttypes.h", "limits.h", "math.h", "stdc-predef.h", "stdint.h",
	"stdio.h", "stdlib.h", "string.h", "strings.h", "time.h", NULL,
};
static const char *const linux_files[] = { "errno.h", "limits.h", NULL };
static const char *const asmgen_files[] = { "errno.h", "errno-base.h", NULL };
static const char *const arch_sys_files[] = { "cdefs.h", "types.h", "select.h", NULL };
static const char *const arch_asm_files[] = { "errno.h", NULL };

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
	if (opts && opts->sdk_include_dir)
		return opts->sdk_include_dir;
	if (has_sdk(TG_DATADIR "/include"))
		return TG_DATADIR "/include";
	return TG_SOURCE_DATADIR;
}

/* A YAML single-quoted scalar. */
static int q(tg_buf *b, const char *s)
{
	int r = tg_buf_puts(b, "'");
	for (; r == 0 && *s; s++)
		r = *s == '\'' ? tg_buf_puts(b, "''") : tg_buf_append(b, s, 1);
	return r ? r : tg_buf_puts(b, "'");
}

static int files(tg_buf *b, const char *const *names, const char *dir)
{
	size_t i;
	int r = 0;
	char ext[512];
	for (i = 0; names[i] && r == 0; i++) {
		snprintf(ext, sizeof(ext), "%s/%s", dir, names[i]);
		r = tg_buf_puts(b, i ? ",{'type':'file','name':" : "{'type':'file','name':");
		if (!r)
			r = q(b, names[i]);
		if (!r)
			r = tg_buf_puts(b, ",'external-contents':");
		if (!r)
			r = q(b, ext);
		if (!r)
			r = tg_buf_puts(b, "}");
	}
	return r;
}

static int remap(tg_buf *b, const char *name, const char *ext)
{
	int r = tg_buf_puts(b, "{'type':'directory-remap','name':");
	if (!r)
		r = q(b, name);
	if (!r)
		r = tg_buf_puts(b, ",'external-contents':");
	if (!r)
		r = q(b, ext);
	return r ? r : tg_buf_puts(b, "}");
}

int tg_vfs_yaml(char **out, const char *sdk_dir)
{
	tg_buf b = TG_BUF_INIT(64 * 1024);
	const char *arch = "/usr/include/" TG_MULTIARCH;
	char sdk_tg[4096];
	int r;

	*out = NULL;
	if (strchr(sdk_dir, '\n') || snprintf(sdk_tg, sizeof(sdk_tg), "%s/toolgate", sdk_dir) >=
					     (int)sizeof(sdk_tg))
		return tg_error_set(TG_ERR_INVALID, "unusable SDK folder");
	r = tg_buf_puts(&b, "{'version':0,'case-sensitive':'true','fallthrough':'false',"
			    "'use-external-names':'false','roots':[");
	if (!r)
		r = remap(&b, "/vsys/clang", TG_CLANG_RESOURCE_INCLUDE);
	if (!r)
		r = tg_buf_puts(&b, ",{'type':'directory','name':'/vsys/sdk','contents':[");
	if (!r)
		r = remap(&b, "toolgate", sdk_tg);
	if (!r)
		r = tg_buf_puts(&b, "]},{'type':'directory','name':'/vsys/arch','contents':[");
	if (!r) {
		char bits[256], gnu[256];
		snprintf(bits, sizeof(bits), "%s/bits", arch);
		snprintf(gnu, sizeof(gnu), "%s/gnu", arch);
		r = remap(&b, "bits", bits);
		if (!r)
			r = tg_buf_puts(&b, ",");
		if (!r)
			r = remap(&b, "gnu", gnu);
	}
	if (!r) {
		char sys[256], as[256];
		snprintf(sys, sizeof(sys), "%s/sys", arch);
		snprintf(as, sizeof(as), "%s/asm", arch);
		r = tg_buf_puts(&b, ",{'type':'directory','name':'sys','contents':[");
		if (!r)
			r = files(&b, arch_sys_files, sys);
		if (!r)
			r = tg_buf_puts(&b, "]},{'type':'directory','name':'asm','contents':[");
		if (!r)
			r = files(&b, arch_asm_files, as);
		if (!r)
			r = tg_buf_puts(&b, "]}]}");
	}
	if (!r)
		r = tg_buf_puts(&b, ",{'type':'directory','name':'/vsys/include','contents':[");
	if (!r)
		r = files(&b, top_files, "/usr/include");
	if (!r)
		r = tg_buf_puts(&b, ",{'type':'directory','name':'linux','contents':[");
	if (!r)
		r = files(&b, linux_files, "/usr/include/linux");
	if (!r)
		r = tg_buf_puts(&b, "]},{'type':'directory','name':'asm-generic','contents':[");
	if (!r)
		r = files(&b, asmgen_files, "/usr/include/asm-generic");
	if (!r)
		r = tg_buf_puts(&b, "]}]}]}\n");
	if (r < 0) {
		tg_buf_free(&b);
		return r;
	}
	*out = tg_buf_detach(&b, NULL);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}
