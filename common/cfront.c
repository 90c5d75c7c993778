/*
 * common/cfront.c: the one C front end that both the analyzer and the build
 * use, so that the program the analyzer vets is the program that is
 * compiled. It holds the compiler arguments (dialect, defines, warnings made
 * errors, the code-generation flags that predefine macros) and writes the
 * virtual sysroot: an -ivfsoverlay YAML with 'fallthrough': false that makes
 * the real file system invisible to clang. Only the curated entries exist
 * (clang's own headers, the glibc headers the allowlisted headers pull in,
 * the tool SDK, and for the build the source file itself); an #include of
 * anything else - /etc/passwd, /dev/stdin, a FIFO - is "file not found"
 * without an open(). The analyzer parses with libclang 14 and these
 * arguments; sandbox/build.c runs the clang 14 driver of the same release
 * with the same arguments and the same overlay (tg_cfront_clang_version()).
 */
#include "common/common.h"

#include <string.h>
#include <sys/stat.h>

#ifndef TG_CLANG_RESOURCE_INCLUDE
#error "common/CMakeLists.txt must define TG_CLANG_RESOURCE_INCLUDE"
#endif
#ifndef TG_CLANG_BIN
#error "common/CMakeLists.txt must define TG_CLANG_BIN and TG_CLANG_VERSION"
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

/* After "-ivfsoverlay PATH". Everything that changes how the source is
 * lexed, preprocessed or honoured is here, once: the dialect, the header
 * tree, -O2 and _FORTIFY_SOURCE (they select glibc's inline wrappers), and
 * the hardening flags (they predefine __SSP_STRONG__, __PIE__, __CET__). */
static const char *const front_args[] = {
	"-isystem", "/vsys/clang", "-isystem", "/vsys/arch", "-isystem", "/vsys/include",
	"-I", "/vsys/sdk", "-O2", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong",
	"-fstack-clash-protection", "-fcf-protection=full", "-fPIE",
	"-Wall", "-Werror=implicit-function-declaration", "-Werror=implicit-int",
	"-Werror=unknown-attributes", "-Werror=ignored-attributes", "-Werror=unknown-pragmas",
	"-Werror=pragmas", "-ferror-limit=20", "-fno-color-diagnostics",
	"-fno-caret-diagnostics", "-fno-diagnostics-fixit-info", "-fmacro-backtrace-limit=1",
};

size_t tg_cfront_args(const char **argv, size_t max, const char *overlay_path)
{
	static const char *const head[] = { "-x", "c", "-std=gnu11", "-nostdinc" };
	size_t n = 0, i, need = TG_ARRAY_SIZE(head) + 2 + TG_ARRAY_SIZE(front_args);

	if (max < need)
		return 0;
	for (i = 0; i < TG_ARRAY_SIZE(head); i++)
		argv[n++] = head[i];
	argv[n++] = "-ivfsoverlay";
	argv[n++] = overlay_path;
	for (i = 0; i < TG_ARRAY_SIZE(front_args); i++)
		argv[n++] = front_args[i];
	return n;
}

const char *tg_cfront_clang_path(void)
{
	return TG_CLANG_BIN;
}

const char *tg_cfront_clang_version(void)
{
	return TG_CLANG_VERSION;
}

int tg_cfront_version_matches(const char *text)
{
	static const char want[] = "clang version " TG_CLANG_VERSION;
	const char *p = text ? strstr(text, want) : NULL;
	char c;

	if (!p)
		return 0;
	c = p[sizeof(want) - 1];
	/* 14.0.6 must not match 14.0.60 */
	return c == 0 || c == ' ' || c == '\n' || c == '-' || c == '~' || c == '+' || c == '(';
}

/* Top-level glibc headers reachable from the allowlisted ones (with any
 * feature-test macro); found with clang -M. */
static const char *const top_files[] = {
	"alloca.h", "assert.h", "ctype.h", "endian.h", "errno.h", "features-time64.h",
	"features.h", "inttypes.h", "limits.h", "math.h", "stdc-predef.h", "stdint.h",
	"stdio.h", "stdlib.h", "string.h", "strings.h", "time.h", "unistd.h", "regex.h",
	"wchar.h", "uchar.h", "complex.h", "fenv.h", "locale.h", NULL,
};
static const char *const linux_files[] = { "errno.h", "limits.h", NULL };
static const char *const asmgen_files[] = { "errno.h", "errno-base.h", NULL };
static const char *const arch_sys_files[] = { "cdefs.h", "types.h", "select.h", NULL };
static const char *const arch_asm_files[] = { "errno.h", NULL };

/* A YAML single-quoted scalar. */
static int q(tg_buf *b, const char *s)
{
	int r = tg_buf_puts(b, "'");
	for (; r == 0 && *s; s++)
		r = *s == '\'' ? tg_buf_puts(b, "''") : tg_buf_append(b, s, 1);
	return r ? r : tg_buf_puts(b, "'");
}

/* One overlay entry: {'type':TYPE,'name':NAME,'external-contents':EXT}. */
static int entry(tg_buf *b, const char *type, const char *name, const char *ext)
{
	int r = tg_buf_puts(b, "{'type':'");
	if (!r)
		r = tg_buf_puts(b, type);
	if (!r)
		r = tg_buf_puts(b, "','name':");
	if (!r)
		r = q(b, name);
	if (!r)
		r = tg_buf_puts(b, ",'external-contents':");
	if (!r)
		r = q(b, ext);
	return r ? r : tg_buf_puts(b, "}");
}

static int files(tg_buf *b, const char *const *names, const char *dir)
{
	size_t i;
	int r = 0;
	char ext[512];
	for (i = 0; names[i] && r == 0; i++) {
		snprintf(ext, sizeof(ext), "%s/%s", dir, names[i]);
		if (i)
			r = tg_buf_puts(b, ",");
		if (!r)
			r = entry(b, "file", names[i], ext);
	}
	return r;
}

int tg_cfront_overlay(char **out, const char *sdk_dir, int with_main)
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
		r = entry(&b, "directory-remap", "/vsys/clang", TG_CLANG_RESOURCE_INCLUDE);
	if (!r)
		r = tg_buf_puts(&b, ",{'type':'directory','name':'/vsys/sdk','contents':[");
	if (!r)
		r = entry(&b, "directory-remap", "toolgate", sdk_tg);
	if (!r)
		r = tg_buf_puts(&b, "]},{'type':'directory','name':'/vsys/arch','contents':[");
	if (!r) {
		char bits[256], gnu[256];
		snprintf(bits, sizeof(bits), "%s/bits", arch);
		snprintf(gnu, sizeof(gnu), "%s/gnu", arch);
		r = entry(&b, "directory-remap", "bits", bits);
		if (!r)
			r = tg_buf_puts(&b, ",");
		if (!r)
			r = entry(&b, "directory-remap", "gnu", gnu);
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
		r = tg_buf_puts(&b, "]}]}");
	/* the build reads the real file (the analyzer an in-memory copy at the
	 * same path, so __FILE__ and the includer's folder are the same) */
	if (!r && with_main) {
		r = tg_buf_puts(&b, ",{'type':'directory','name':'" TG_CFRONT_DIR "','contents':[");
		if (!r)
			r = entry(&b, "file", TG_CFRONT_NAME, TG_CFRONT_MAIN);
		if (!r)
			r = tg_buf_puts(&b, "]}");
	}
	if (!r)
		r = tg_buf_puts(&b, "]}\n");
	if (r < 0) {
		tg_buf_free(&b);
		return r;
	}
	*out = tg_buf_detach(&b, NULL);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}
