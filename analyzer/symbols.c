/*
 * analyzer/symbols.c: the built-in symbol tables. The allowlist is what a
 * tool may reference without defining it (memory, strings, conversion,
 * formatting, stdio on the standard streams and checked paths, math, ctype,
 * qsort/bsearch, reading the time); the category tables only name why a
 * symbol off the allowlist is refused. Also: allowed builtins, attributes,
 * headers, and the path-checked file functions.
 */
#include "internal.h"

#include <pthread.h>
#include <string.h>

static const char *const allow_plain[] = {
	/* memory */
	"malloc", "calloc", "realloc", "free", "aligned_alloc", "memcpy", "memmove", "memset",
	"memcmp", "memchr", "memrchr", "mempcpy", "memmem",
	/* strings */
	"strlen", "strnlen", "strcpy", "strncpy", "stpcpy", "stpncpy", "strcat", "strncat",
	"strcmp", "strncmp", "strcoll", "strxfrm", "strchr", "strrchr", "strchrnul", "strstr",
	"strcasestr", "strspn", "strcspn", "strpbrk", "strtok", "strtok_r", "strsep", "strdup",
	"strndup", "strerror", "strcasecmp", "strncasecmp", "bcmp", "bzero", "explicit_bzero",
	"index", "rindex", "ffs", "ffsl", "ffsll",
	/* regular expressions (regex.h: compiled and matched in memory) */
	"regcomp", "regexec", "regerror", "regfree",
	/* wide and multibyte characters (wchar.h, uchar.h; the C locale) */
	"wcslen", "wcsnlen", "wcscmp", "wcsncmp", "wcscpy", "wcsncpy", "wcscat", "wcsncat",
	"wcschr", "wcsrchr", "wcsstr", "wcsspn", "wcscspn", "wcspbrk", "wcstok", "wcsdup",
	"wcstol", "wcstoll", "wcstoul", "wcstoull", "wcstod", "wcstof", "wcstold", "wmemcpy",
	"wmemmove", "wmemset", "wmemcmp", "wmemchr", "mbrtowc", "wcrtomb", "mbrlen", "mbsinit",
	"mbstowcs", "wcstombs", "mbsrtowcs", "wcsrtombs", "mbtowc", "wctomb", "mblen", "btowc",
	"wctob", "swprintf", "vswprintf", "mbrtoc16", "c16rtomb", "mbrtoc32", "c32rtomb",
	/* floating-point environment (fenv.h: this thread's FPU state only) */
	"feclearexcept", "fetestexcept", "feraiseexcept", "fegetexceptflag", "fesetexceptflag",
	"fegetround", "fesetround", "fegetenv", "fesetenv", "feholdexcept", "feupdateenv",
	/* locale.h, read-only (setlocale would read the environment and files) */
	"localeconv",	/* conversion */
	"atoi", "atol", "atoll", "atof", "strtol", "strtoll", "strtoul", "strtoull", "strtod",
	"strtof", "strtold", "strtoimax", "strtoumax", "abs", "labs", "llabs", "div", "ldiv",
	"lldiv", "imaxabs", "imaxdiv", "rand", "srand", "rand_r",
	/* formatting and standard streams */
	"printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf",
	"vsnprintf", "asprintf", "vasprintf", "dprintf", "scanf", "fscanf", "sscanf", "vscanf",
	"vfscanf", "vsscanf", "puts", "fputs", "putchar", "fputc", "putc", "getchar", "getc",
	"fgetc", "fgets", "ungetc", "fread", "fwrite", "fflush", "feof", "ferror", "clearerr",
	"perror", "setvbuf", "setbuf", "setlinebuf", "fseek", "ftell", "fseeko", "ftello",
	"rewind", "fgetpos", "fsetpos", "fclose", "getline", "getdelim", "tmpfile",
	"fmemopen", "open_memstream",
	"putchar_unlocked", "getchar_unlocked", "fputc_unlocked", "fgetc_unlocked",
	"putc_unlocked", "getc_unlocked", "fwrite_unlocked", "fread_unlocked",
	/* path-checked (see tg_path_function) */
	"fopen", "freopen", "remove", "rename",
	/* unistd.h: only on a constant standard descriptor (tg_fd_function) */
	"read", "write",
	"stdin", "stdout", "stderr",
	/* process end */
	"exit", "_Exit", "abort",
	/* sorting and searching */
	"qsort", "bsearch",
	/* ctype (glibc implements the macros with these) */
	"isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint",
	"ispunct", "isspace", "isupper", "isxdigit", "tolower", "toupper", "isascii", "toascii",
	"__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc",
	/* errno and assert */
	"__errno_location", "__assert_fail", "__assert_perror_fail", "__assert",
	/* reading the time */
	"time", "clock", "difftime", "mktime", "timegm", "gmtime", "gmtime_r", "localtime", "strptime",
	"localtime_r", "strftime", "asctime", "asctime_r", "ctime", "ctime_r", "clock_gettime",
	"timespec_get",
	/* compiler runtime (object check) */
	"__stack_chk_fail",
	NULL,
};

/* Math: each gets its f and l variants too. */
static const char *const allow_math[] = {
	"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
	"acosh", "atanh", "exp", "exp2", "expm1", "log", "log10", "log2", "log1p", "pow", "sqrt",
	"cbrt", "hypot", "fabs", "floor", "ceil", "round", "lround", "llround", "trunc", "rint",
	"lrint", "llrint", "nearbyint", "fmod", "remainder", "remquo", "fmin", "fmax", "fdim",
	"fma", "frexp", "ldexp", "modf", "scalbn", "scalbln", "ilogb", "logb", "nextafter",
	"nexttoward", "copysign", "nan", "erf", "erfc", "tgamma", "lgamma", "sincos", "exp10",
	/* complex.h */
	"cabs", "carg", "cimag", "creal", "conj", "cproj", "cexp", "clog", "cpow", "csqrt",
	"csin", "ccos", "ctan", "casin", "cacos", "catan", "csinh", "ccosh", "ctanh", "casinh",
	"cacosh", "catanh",
	NULL,
};

static const char *all_names[1024];
static size_t n_all;
static char math_store[2 * 128][16];
static pthread_once_t all_once = PTHREAD_ONCE_INIT;

static void build_all(void)
{
	const char **all = all_names;
	size_t i, m = 0, n = 0;

	for (i = 0; allow_plain[i]; i++)
		all[n++] = allow_plain[i];
	for (i = 0; allow_math[i]; i++) {
		const char *b = allow_math[i];
		all[n++] = b;
		snprintf(math_store[m], sizeof(math_store[m]), "%sf", b);
		all[n++] = math_store[m++];
		snprintf(math_store[m], sizeof(math_store[m]), "%sl", b);
		all[n++] = math_store[m++];
	}
	all[n] = NULL;
	n_all = n;
}

size_t tg_builtin_allowlist(const char ***out)
{
	pthread_once(&all_once, build_all);
	*out = all_names;
	return n_all;
}

typedef struct catname {
	const char *name;
	const char *rule;
} catname;

static const char *const cat_process[] = {
	"system", "popen", "pclose", "wordexp", "execl", "execle", "execlp", "execv", "execve",
	"execvp", "execvpe", "execveat", "fexecve", "fork", "vfork", "_Fork", "__fork", "__vfork",
	"__libc_fork", "clone", "clone3", "__clone", "__clone2", "posix_spawn", "posix_spawnp",
	"daemon", "forkpty", "openpty", "login_tty", "__libc_system", "unshare", "setns", "prctl",
	"personality", "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "wait", "waitpid",
	"waitid", "wait3", "wait4", "pthread_create", "thrd_create", "_exit", NULL,
};
static const char *const cat_network[] = {
	"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "send",
	"sendto", "sendmsg", "sendmmsg", "recv", "recvfrom", "recvmsg", "recvmmsg",
	"setsockopt", "getsockopt", "shutdown", "getaddrinfo", "getnameinfo", "freeaddrinfo",
	"gethostbyname", "gethostbyname2", "gethostbyname_r", "gethostbyaddr", "getservbyname",
	"getservbyport", "getprotobyname", "res_init", "res_query", "res_search", "res_nquery",
	"res_nsearch", "__res_query", "getifaddrs", "if_nametoindex", "getpeername",
	"getsockname", NULL,
};
static const char *const cat_dynamic[] = {
	"dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dlclose",
	"dlerror", "dl_iterate_phdr", "_dl_find_object", "_dl_catch_error", "getauxval",
	"__getauxval", "mprotect", "pkey_mprotect", "memfd_create", "mmap", "mmap64", "mremap",
	"munmap", "__builtin___clear_cache", "__clear_cache", "_r_debug", "_DYNAMIC",
	"_GLOBAL_OFFSET_TABLE_", "getcontext", "setcontext", "makecontext", "swapcontext",
	"setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp", "siglongjmp",
	"__longjmp_chk", "__builtin_setjmp", "__builtin_longjmp", "__libc_dlopen_mode",
	"__libc_dlsym", NULL,
};
static const char *const cat_syscall[] = {
	"syscall", "__syscall", "__syscall_cp", "ioctl", NULL,
};
static const char *const cat_privilege[] = {
	"ptrace", "process_vm_readv", "process_vm_writev", "kill", "tkill", "tgkill", "killpg",
	"raise", "sigqueue", "signal", "sigaction", "alarm", "setitimer", "setuid", "setgid",
	"seteuid", "setegid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid",
	"setfsgid", "setgroups", "initgroups", "capset", "capget", "chroot", "pivot_root",
	"mount", "umount", "umount2", "reboot", "init_module", "finit_module", "delete_module",
	"iopl", "ioperm", "modify_ldt", "arch_prctl", "seccomp", "bpf", "perf_event_open",
	"settimeofday", "clock_settime", "stime", "adjtimex", "setrlimit", "prlimit", "nice",
	"setpriority", "sched_setaffinity", "sched_setscheduler", "keyctl", "add_key", NULL,
};
static const char *const cat_environment[] = {
	"getenv", "secure_getenv", "__secure_getenv", "__libc_secure_getenv", "setenv",
	"putenv", "unsetenv", "clearenv", "environ", "__environ", "_environ", "getlogin",
	"getlogin_r", "cuserid", "getpwnam", "getpwuid", "getpwent", "getpwnam_r", "getpwuid_r",
	"getspnam", "getspent", "getpass", "crypt", "crypt_r", "getgrnam", "getgrgid",
	"getgrent", "getuid", "geteuid", "getgid", "getegid", "getpid", "getppid",
	"gethostname", "getdomainname", "uname", "sysinfo", "confstr", "sysconf",
	"program_invocation_name", "program_invocation_short_name", "__progname", "tzname",
	"timezone", "daylight", "getrandom", "getentropy", NULL,
};
static const char *const cat_file[] = {
	"open", "open64", "openat", "openat64", "creat", "creat64", "fopen64", "freopen64",
	"fdopen", "unlink", "unlinkat", "rmdir", "mkdir", "mkdirat", "link", "linkat",
	"symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
	"fchownat", "truncate", "truncate64", "ftruncate", "utime", "utimes", "utimensat",
	"futimens", "mknod", "mknodat", "mkfifo", "mkfifoat", "mkstemp", "mkstemps", "mkostemp",
	"mkdtemp", "tmpnam", "tmpnam_r", "tempnam", "mktemp", "setxattr", "getxattr",
	"listxattr", "removexattr", "chdir", "fchdir", "getcwd", "opendir", "fdopendir",
	"readdir", "readdir64", "closedir", "scandir", "nftw", "ftw", "glob", "stat", "stat64",
	"lstat", "fstat", "fstatat", "statx", "access", "faccessat", "euidaccess", "readlink",
	"readlinkat", "realpath", "canonicalize_file_name", "read", "write", "pread", "pwrite",
	"readv", "writev", "close", "dup", "dup2", "dup3", "pipe", "pipe2", "fileno", "lseek",
	"fcntl", "flock", "lockf", "sendfile", "splice", "tee", "copy_file_range", "renameat",
	"renameat2", "inotify_init", "fanotify_init", "statfs", "name_to_handle_at",
	"open_by_handle_at", "fopencookie", NULL,
};

static const struct {
	const char *rule;
	const char *const *names;
} categories[] = {
	{ "process", cat_process },       { "network", cat_network },
	{ "dynamic_code", cat_dynamic },  { "raw_syscall", cat_syscall },
	{ "privilege", cat_privilege },   { "environment", cat_environment },
	{ "file_access", cat_file },
};

int tg_symbol_sdk_io(const char *name)
{
	/* read/write: the bridge on fd 3 (bridge.h); openat, fdopen, close:
	 * tg_workspace_open (workspace.h) */
	return name && (strcmp(name, "read") == 0 || strcmp(name, "write") == 0 ||
			strcmp(name, "openat") == 0 || strcmp(name, "fdopen") == 0 ||
			strcmp(name, "close") == 0);
}

const char *tg_symbol_category(const char *name)
{
	size_t c, i;
	char base[TG_SYMBOL_MAX + 1];

	if (!name)
		return NULL;
	for (c = 0; c < TG_ARRAY_SIZE(categories); c++)
		for (i = 0; categories[c].names[i]; i++)
			if (strcmp(categories[c].names[i], name) == 0)
				return categories[c].rule;
	/* fortify and private variants of a categorized name */
	if (strncmp(name, "__", 2) == 0 && strlen(name) < sizeof(base)) {
		const char *s = name + 2;
		size_t n;
		if (strncmp(s, "libc_", 5) == 0)
			s += 5;
		snprintf(base, sizeof(base), "%s", s);
		n = strlen(base);
		if (n > 4 && strcmp(base + n - 4, "_chk") == 0)
			base[n - 4] = 0;
		if (strcmp(base, name) != 0 && base[0])
			return tg_symbol_category(base);
	}
	if (strncmp(name, "exec", 4) == 0 || strncmp(name, "posix_spawn", 11) == 0)
		return "process";
	if (strncmp(name, "pthread_", 8) == 0 || strncmp(name, "thrd_", 5) == 0)
		return "process";
	return NULL;
}

static const char *const builtin_allow[] = {
	"__builtin_expect", "__builtin_expect_with_probability", "__builtin_unreachable",
	"__builtin_assume", "__builtin_constant_p", "__builtin_add_overflow",
	"__builtin_sub_overflow", "__builtin_mul_overflow", "__builtin_sadd_overflow",
	"__builtin_saddl_overflow", "__builtin_saddll_overflow", "__builtin_uadd_overflow",
	"__builtin_uaddl_overflow", "__builtin_uaddll_overflow", "__builtin_ssub_overflow",
	"__builtin_ssubl_overflow", "__builtin_ssubll_overflow", "__builtin_usub_overflow",
	"__builtin_usubl_overflow", "__builtin_usubll_overflow", "__builtin_smul_overflow",
	"__builtin_smull_overflow", "__builtin_smulll_overflow", "__builtin_umul_overflow",
	"__builtin_umull_overflow", "__builtin_umulll_overflow", "__builtin_clz",
	"__builtin_clzl", "__builtin_clzll", "__builtin_ctz", "__builtin_ctzl", "__builtin_ctzll",
	"__builtin_popcount", "__builtin_popcountl", "__builtin_popcountll", "__builtin_parity",
	"__builtin_parityl", "__builtin_parityll", "__builtin_ffs", "__builtin_ffsl",
	"__builtin_ffsll", "__builtin_clrsb", "__builtin_bswap16", "__builtin_bswap32",
	"__builtin_bswap64", "__builtin_va_start", "__builtin_va_end", "__builtin_va_copy",
	"__builtin_huge_val", "__builtin_huge_valf", "__builtin_huge_vall", "__builtin_inf",
	"__builtin_inff", "__builtin_infl", "__builtin_nan", "__builtin_nanf", "__builtin_nanl",
	"__builtin_nans", "__builtin_nansf", "__builtin_nansl", "__builtin_isnan",
	"__builtin_isinf", "__builtin_isinf_sign", "__builtin_isfinite", "__builtin_isnormal",
	"__builtin_fpclassify", "__builtin_signbit", "__builtin_signbitf", "__builtin_signbitl",
	"__builtin_isgreater", "__builtin_isgreaterequal", "__builtin_isless",
	"__builtin_islessequal", "__builtin_islessgreater", "__builtin_isunordered",
	"__builtin_issignaling", "__builtin_iszero", "__builtin_object_size",
	"__builtin_dynamic_object_size", NULL,
};

static const char *const attr_allow[] = {
	"unused", "maybe_unused", "noreturn", "_Noreturn", "format", "format_arg", "aligned",
	"_Alignas", "packed", "nonnull", "returns_nonnull", "warn_unused_result", "const",
	"pure", "cold", "hot", "noinline", "always_inline", "deprecated", "fallthrough",
	"sentinel", "malloc", "alloc_size",
	/* stdalign.h and stdnoreturn.h spellings */
	"alignas", NULL,
};

int tg_attribute_allowed(const char *name)
{
	size_t i;
	char b[64];
	size_t n = strlen(name);

	if (n >= sizeof(b))
		return 0;
	if (n > 4 && strncmp(name, "__", 2) == 0 && strcmp(name + n - 2, "__") == 0) {
		memcpy(b, name + 2, n - 4);
		b[n - 4] = 0;
		name = b;
	}
	for (i = 0; attr_allow[i]; i++)
		if (strcmp(attr_allow[i], name) == 0)
			return 1;
	return 0;
}

/* Reserved identifiers a tool may write: keywords and extensions that mean
 * the same to clang and gcc, the standard predefined macros whose value is
 * the same for both (or only a string), the feature-test macros, and the
 * names other rules report more precisely. */
static const char *const reserved_allow[] = {
	"__attribute__", "__attribute", "__typeof__", "__typeof", "__inline__", "__inline",
	"__restrict__", "__restrict", "__extension__", "__const__", "__const", "__volatile__",
	"__volatile", "__signed__", "__signed", "__alignof__", "__alignof", "__label__",
	"__real__", "__imag__", "__real", "__imag", "__int128", "__auto_type", "__thread",
	"__complex__", "__func__", "__FUNCTION__", "__PRETTY_FUNCTION__", "__VA_ARGS__",
	"__FILE__", "__LINE__", "__DATE__", "__TIME__", "__STDC__", "__STDC_VERSION__",
	"__STDC_HOSTED__", "_Bool", "_Static_assert", "_Noreturn", "_Alignas", "_Alignof",
	"_Generic", "_Atomic", "_Thread_local", "_Complex", "_Imaginary",
	/* the standard library's own reserved names (same header for analysis
	 * and build, no meaning that differs) */
	"_Exit", "_IOFBF", "_IOLBF", "_IONBF", "_Complex_I", "_Imaginary_I",
	/* reported by their own rules */
	"_Pragma", "__pragma", "__has_include", "__has_include_next", "__asm__", "__asm",
	/* feature-test macros */
	"_GNU_SOURCE", "_DEFAULT_SOURCE", "_POSIX_C_SOURCE", "_POSIX_SOURCE", "_XOPEN_SOURCE",
	"_XOPEN_SOURCE_EXTENDED", "_ISOC99_SOURCE", "_ISOC11_SOURCE", "_ISOC2X_SOURCE",
	"_LARGEFILE_SOURCE", "_LARGEFILE64_SOURCE", "_FILE_OFFSET_BITS", "_TIME_BITS",
	"_BSD_SOURCE", "_SVID_SOURCE", "_REENTRANT", "_THREAD_SAFE",
	"__STDC_WANT_LIB_EXT1__", "__STDC_WANT_LIB_EXT2__", "__STDC_WANT_IEC_60559_BFP_EXT__",
	"__STDC_WANT_IEC_60559_DFP_EXT__", "__STDC_WANT_IEC_60559_FUNCS_EXT__",
	"__STDC_WANT_IEC_60559_TYPES_EXT__", "__STDC_WANT_IEC_60559_EXT__",
	"__STDC_FORMAT_MACROS", "__STDC_LIMIT_MACROS", "__STDC_CONSTANT_MACROS", NULL,
};

int tg_feature_macro(const char *name, size_t len)
{
	static const char *const features[] = {
		"_GNU_SOURCE", "_DEFAULT_SOURCE", "_POSIX_C_SOURCE", "_POSIX_SOURCE",
		"_XOPEN_SOURCE", "_XOPEN_SOURCE_EXTENDED", "_ISOC99_SOURCE", "_ISOC11_SOURCE",
		"_ISOC2X_SOURCE", "_LARGEFILE_SOURCE", "_LARGEFILE64_SOURCE", "_FILE_OFFSET_BITS",
		"_TIME_BITS", "_BSD_SOURCE", "_SVID_SOURCE", "_REENTRANT", "_THREAD_SAFE",
		"__STDC_WANT_LIB_EXT1__", "__STDC_WANT_LIB_EXT2__",
		"__STDC_WANT_IEC_60559_BFP_EXT__", "__STDC_WANT_IEC_60559_DFP_EXT__",
		"__STDC_WANT_IEC_60559_FUNCS_EXT__", "__STDC_WANT_IEC_60559_TYPES_EXT__",
		"__STDC_WANT_IEC_60559_EXT__", "__STDC_FORMAT_MACROS", "__STDC_LIMIT_MACROS",
		"__STDC_CONSTANT_MACROS", NULL,
	};
	size_t i;
	for (i = 0; features[i]; i++)
		if (strlen(features[i]) == len && memcmp(features[i], name, len) == 0)
			return 1;
	return 0;
}

int tg_reserved_allowed(const char *name, size_t len)
{
	size_t i;
	/* builtins are checked one by one on the AST */
	if (len > 10 && strncmp(name, "__builtin_", 10) == 0)
		return 1;
	for (i = 0; reserved_allow[i]; i++)
		if (strlen(reserved_allow[i]) == len && memcmp(reserved_allow[i], name, len) == 0)
			return 1;
	return 0;
}

static const char *const include_allow[] = {
	"stdio.h", "stdlib.h", "string.h", "ctype.h", "math.h", "stdint.h", "stdbool.h",
	"stddef.h", "limits.h", "errno.h", "float.h", "inttypes.h", "assert.h", "time.h",
	"toolgate/tool.h",
	/* declarations only; every function they declare is checked on its own */
	"stdarg.h", "stdalign.h", "stdnoreturn.h", "iso646.h", "strings.h", "sys/types.h",
	"unistd.h", "regex.h", "wchar.h", "uchar.h", "complex.h", "fenv.h", "locale.h", NULL,
};

const char *const *tg_include_list(void)
{
	return include_allow;
}

const char *const *tg_builtin_list(void)
{
	return builtin_allow;
}

const char *const *tg_attribute_list(void)
{
	return attr_allow;
}

int tg_include_allowed(const char *name)
{
	size_t i;
	for (i = 0; include_allow[i]; i++)
		if (strcmp(include_allow[i], name) == 0)
			return 1;
	return 0;
}

int tg_fd_function(const char *name, int *write)
{
	if (strcmp(name, "read") == 0) {
		*write = 0;
		return 1;
	}
	if (strcmp(name, "write") == 0) {
		*write = 1;
		return 1;
	}
	return 0;
}

int tg_path_function(const char *name, unsigned *argmask)
{
	if (strcmp(name, "fopen") == 0 || strcmp(name, "freopen") == 0 ||
	    strcmp(name, "remove") == 0) {
		*argmask = 1u;
		return 1;
	}
	if (strcmp(name, "rename") == 0) {
		*argmask = 3u;
		return 1;
	}
	return 0;
}
