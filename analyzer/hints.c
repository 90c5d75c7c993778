/*
 * analyzer/hints.c: the "what to use instead" of a finding. Every finding
 * carries a short hint naming the allowed alternative where one exists: a
 * symbol-specific one first (system -> compute it in the tool, fopen of a
 * path -> stdin or tg_workspace_open with the workspace capability, socket
 * -> the tool bridge),
 * else the rule's own. The hint is derived from the rule and the symbol
 * only, so the parse child never has to send it and an agent can rely on
 * the same finding always giving the same advice.
 */
#include "internal.h"

#include <string.h>

typedef struct sym_hint {
	const char *name;   /* exact name, or a prefix when it ends in '*' */
	const char *hint;
} sym_hint;

static const char H_PROC[] = "no processes: compute the result in the tool itself";
static const char H_NET[] =
	"no network: call another registered tool through the bridge with tg_call_tool() (toolgate/tool.h)";
static const char H_FILE_OPEN[] =
	"read the input from stdin (tg_tool_read_args() or fread on stdin); for a file of the workspace ask for the workspace:read capability and open it with tg_workspace_open(name, \"r\") (toolgate/tool.h), which takes a computed name under /workspace";
static const char H_WS_OPEN[] =
	"declare \"capabilities\": [\"workspace:read\"] in the manifest (workspace:write for the modes w, a and +) and pass the mode as a string constant: tg_workspace_open(name, \"r\")";
static const char H_RW[] =
	"read stdin with fread/fgets/getchar and write stdout with fwrite/fputs/printf";
static const char H_DIR[] =
	"no directory access: take the file list as input, or fopen a constant /workspace/ path with the workspace capability";
static const char H_TIME_ENV[] =
	"use gmtime_r/strftime/timegm (UTC); the host's zone is not visible";
static const char H_RANDOM[] = "use rand_r() with a seed taken from the input";
static const char H_ENV[] = "take settings from the JSON input (tg_tool_read_args()), not the environment";

static const sym_hint sym_hints[] = {
	/* process */
	{ "system", H_PROC },
	{ "popen", H_PROC },
	{ "pclose", H_PROC },
	{ "fork", H_PROC },
	{ "vfork", H_PROC },
	{ "exec*", H_PROC },
	{ "posix_spawn*", H_PROC },
	{ "wait*", H_PROC },
	{ "pthread_*", "no threads: do the work in a loop in main" },
	{ "thrd_*", "no threads: do the work in a loop in main" },
	{ "_exit", "use exit() or _Exit(), or return from main" },
	{ "wordexp", "split the words yourself (strtok_r, strsep)" },
	/* network */
	{ "socket", H_NET },
	{ "connect", H_NET },
	{ "getaddrinfo", H_NET },
	{ "gethostbyname", H_NET },
	{ "send", H_NET },
	{ "recv", H_NET },
	/* dynamic code */
	{ "setjmp", "return an error code up the call chain instead of setjmp/longjmp" },
	{ "longjmp", "return an error code up the call chain instead of setjmp/longjmp" },
	{ "_setjmp", "return an error code up the call chain instead of setjmp/longjmp" },
	{ "sigsetjmp", "return an error code up the call chain instead of setjmp/longjmp" },
	{ "siglongjmp", "return an error code up the call chain instead of setjmp/longjmp" },
	{ "mmap", "use malloc/calloc for memory" },
	{ "munmap", "use free" },
	{ "dl*", "no dynamic loading: the tool may only run the code it was vetted with" },
	/* privilege */
	{ "signal", "no signal handlers: check for errors where they happen" },
	{ "sigaction", "no signal handlers: check for errors where they happen" },
	{ "raise", "use abort() or exit(1)" },
	{ "kill", "tools may not touch other processes; exit with a status instead" },
	{ "alarm", "the sandbox enforces the time limit (limits.timeout_ms in the manifest)" },
	/* environment */
	{ "getenv", H_ENV },
	{ "secure_getenv", H_ENV },
	{ "setenv", H_ENV },
	{ "environ", H_ENV },
	{ "getrandom", H_RANDOM },
	{ "getentropy", H_RANDOM },
	{ "tzname", H_TIME_ENV },
	{ "timezone", H_TIME_ENV },
	{ "daylight", H_TIME_ENV },
	{ "getpid", "the tool has no use for process ids; take an id from the input" },
	/* files */
	{ "open", H_FILE_OPEN },
	{ "open64", H_FILE_OPEN },
	{ "openat", H_FILE_OPEN },
	{ "creat", "write the result to stdout; for files ask for workspace:write and fopen(\"/workspace/NAME\", \"w\")" },
	{ "fopen", H_FILE_OPEN },
	{ "freopen", H_FILE_OPEN },
	{ "fopen64", H_FILE_OPEN },
	{ "tg_workspace_open", H_WS_OPEN },
	{ "fdopen", "use the standard streams stdin, stdout, stderr" },
	{ "read", H_RW },
	{ "write", H_RW },
	{ "pread", H_RW },
	{ "pwrite", H_RW },
	{ "readv", H_RW },
	{ "writev", H_RW },
	{ "close", "use fclose on a FILE* you opened with fopen" },
	{ "fileno", "use the FILE* functions on stdin/stdout directly" },
	{ "stat", "fopen the file and use fseek/ftell for its size" },
	{ "lstat", "fopen the file and use fseek/ftell for its size" },
	{ "fstat", "fopen the file and use fseek/ftell for its size" },
	{ "access", "just fopen the file and check for NULL" },
	{ "opendir", H_DIR },
	{ "readdir", H_DIR },
	{ "scandir", H_DIR },
	{ "glob", H_DIR },
	{ "nftw", H_DIR },
	{ "mkstemp", "use tmpfile() for scratch data" },
	{ "tmpnam", "use tmpfile() for scratch data" },
	{ "mktemp", "use tmpfile() for scratch data" },
	{ "realpath", "paths are fixed constants under /tmp/ or /workspace/; no resolution needed" },
	{ "getcwd", "paths are fixed constants under /tmp/ or /workspace/" },
	{ "fopencookie", "use fmemopen/open_memstream for an in-memory stream" },
	{ "setlocale", "the C locale is fixed; read it with localeconv()" },
	/* raw syscalls */
	{ "syscall", "use the allowed library function for what the call does" },
	{ "ioctl", "no device control: tools read stdin and write stdout" },
	{ NULL, NULL },
};

static int name_matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return strncmp(pattern, name, n - 1) == 0;
	return strcmp(pattern, name) == 0;
}

/* Rule-level hints where the rule's help text alone is not the best advice
 * (the help stays in SARIF's tool.driver.rules). */
static const sym_hint rule_hints[] = {
	{ "process", H_PROC },
	{ "network", H_NET },
	{ "file_access", H_FILE_OPEN },
	{ "environment", H_ENV },
	{ "indirect_call",
	  "call the function directly or use a switch; a call through a static const table of your own functions is allowed" },
	{ "fptr_cast", "point to functions by name only (no casts to function pointers)" },
	{ "computed_goto", "use a switch statement" },
	{ "stmt_expr", "use a static inline function instead of ({ ... })" },
	{ "include", "see the allowed headers in docs/POLICY.md (resource toolgate://policy); the rest of the file was still checked" },
	{ "not_allowed",
	  "use an allowed function (toolgate://policy lists them) or write it in the tool" },
	{ "redefinition", "make the function static or give it your own name" },
	{ "reserved_identifier", "use your own names (no leading underscore + capital or double underscore)" },
	{ "implicit_decl", "include the allowed header that declares the function, or declare your own" },
	{ "main_envp", "declare int main(void) and read settings from the JSON input" },
	{ NULL, NULL },
};

const char *tg_hint_for(const char *rule, const char *symbol)
{
	size_t i;
	int idx;

	if (symbol && strcmp(rule, "limits") != 0 && strcmp(rule, "parse") != 0) {
		const char *s = symbol;
		/* __printf_chk, __isoc99_sscanf ... name their plain function */
		if (strncmp(s, "__isoc99_", 9) == 0 || strncmp(s, "__isoc23_", 9) == 0)
			s += 9;
		for (i = 0; sym_hints[i].name; i++)
			if (name_matches(sym_hints[i].name, s))
				return sym_hints[i].hint;
	}
	for (i = 0; rule_hints[i].name; i++)
		if (strcmp(rule_hints[i].name, rule) == 0)
			return rule_hints[i].hint;
	idx = tg_rule_index(rule);
	return idx >= 0 ? tg_rules[idx].help : NULL;
}
