/*
 * analyzer/rules.c: the table of stable rule ids. Each finding names one of
 * these; the table gives its category, default severity, the texts used in
 * SARIF's tool.driver.rules, and whether a policy may lower it. docs/POLICY.md
 * lists the same ids.
 */
#include "internal.h"

#include <string.h>

#define E TG_SEV_ERROR
#define W TG_SEV_WARNING

const tg_rule tg_rules[] = {
	{ "process", "process", E, 0, "9.5", "Process creation or program execution",
	  "The source references a function that starts or controls processes (system, popen, exec*, fork, posix_spawn, clone, wait...).",
	  "Tools run as a single process; compute the result yourself." },
	{ "network", "network", E, 0, "9.0", "Network access",
	  "The source references a socket, name-resolution or other network function.",
	  "Tools have no network; take the data as input instead." },
	{ "dynamic_code", "dynamic_code", E, 0, "9.5", "Dynamic code loading or executable memory",
	  "The source references dlopen/dlsym, mmap/mprotect, memfd_create, getauxval, setjmp/longjmp or similar.",
	  "Tools may only run the code they were vetted with." },
	{ "raw_syscall", "raw_syscall", E, 0, "9.5", "Raw system call",
	  "The source references syscall() or a similar raw kernel entry point.",
	  "Use the allowed library functions." },
	{ "inline_asm", "raw_syscall", E, 0, "9.5", "Inline assembly",
	  "The source contains an asm statement or file-scope asm.",
	  "Assembly cannot be vetted; write portable C." },
	{ "privilege", "privilege", E, 0, "9.0", "Privilege, signal or debugging operation",
	  "The source references ptrace, kill, set*id, chroot, mount, seccomp, bpf or similar.",
	  "Tools may not change privileges or touch other processes." },
	{ "environment", "environment", E, 0, "7.5", "Environment or account data",
	  "The source reads or changes the environment (getenv, environ, setenv...) or account data (getpw*, getlogin...).",
	  "Tools get their input as JSON on stdin only." },
	{ "main_envp", "environment", E, 0, "7.5", "main() with an environment parameter",
	  "main is declared with a third (envp) parameter.",
	  "Declare int main(void)." },
	{ "file_access", "file_access", E, 0, "8.0", "File access outside the allowed folders",
	  "A file function is used with a path that is not a constant under /tmp/ (or /workspace/ with the workspace capability), or a file function outside the allowed set is referenced.",
	  "Use fopen with a constant path under /tmp/, or ask for the workspace capability (tg_workspace_open opens a computed name under /workspace)." },
	{ "not_allowed", "not_allowed", E, 0, "7.0", "External symbol not on the allowlist",
	  "Every function or variable used but not defined in the tool must be on the allowlist (memory, strings, formatting, math, ctype, stdio on stdin/stdout/stderr, qsort/bsearch, time reading).",
	  "Use an allowed function or implement it in the tool." },
	{ "include", "include", E, 1, "8.5", "Include outside the allowlist",
	  "Only the allowlisted standard headers and toolgate/tool.h may be included; absolute paths, '..', computed includes and __has_include probing are refused and the named file is never opened.",
	  "Include only the standard headers of docs/POLICY.md (stdio.h, stdlib.h, string.h, ctype.h, math.h, stdint.h, stdbool.h, stddef.h, stdarg.h, limits.h, errno.h, float.h, inttypes.h, assert.h, time.h, regex.h, unistd.h, strings.h, wchar.h, ...) and toolgate/tool.h." },
	{ "asm_label", "evasion", E, 0, "9.0", "Assembler label on a declaration",
	  "A declaration renames its linker symbol with __asm__(\"name\").",
	  "Call functions by their own names." },
	{ "mangling", "evasion", E, 0, "9.0", "Linker name differs from the source name",
	  "A referenced or defined symbol links under another name (#pragma redefine_extname, asm label).",
	  "Do not rename symbols." },
	{ "redefinition", "evasion", E, 0, "7.5", "Definition of a library or reserved name",
	  "The tool defines an external function or variable whose name belongs to the C library or is reserved (starts with an underscore), which could replace library code at link time.",
	  "Give your functions your own names, or make them static." },
	{ "attribute", "evasion", E, 0, "8.5", "Attribute outside the allowed set",
	  "Attributes such as alias, weakref, ifunc, constructor, destructor, section and cleanup change linking or run code implicitly.",
	  "Only unused, noreturn, format, aligned, packed, nonnull, const, pure and similar harmless attributes are allowed." },
	{ "pragma", "evasion", E, 0, "8.5", "Pragma", "#pragma and _Pragma can rename symbols or silence diagnostics; they are not allowed.",
	  "Remove the pragma." },
	{ "reserved_identifier", "evasion", E, 0, "7.5", "Identifier reserved for the implementation",
	  "Identifiers starting with two underscores or an underscore and a capital (and a lone '_', a pasting piece) name compiler and library internals; hundreds of predefined macros differ between the analyzing clang and the building gcc, so using them could make the two see different programs.",
	  "Use your own names; only C keywords such as _Bool, __func__, __attribute__, __builtin_* and the feature-test macros (_GNU_SOURCE...) are allowed." },
	{ "directive", "evasion", E, 0, "6.0", "Preprocessor directive outside the allowed set",
	  "Only #define, #undef, #if/#ifdef/#ifndef/#elif/#else/#endif, #include, #error and #warning are allowed.",
	  "Remove the directive." },
	{ "line_marker", "evasion", E, 0, "8.0", "Line marker or #line",
	  "Line markers can make code look like it comes from a system header.",
	  "Remove the #line / # N \"file\" directive." },
	{ "trigraph", "evasion", E, 0, "7.0", "Trigraph sequence",
	  "A ??x trigraph sequence reads differently depending on the language mode.",
	  "Write the character itself (escape '?' in strings as \\?)." },
	{ "skipped_code", "evasion", E, 0, "7.0", "Code skipped by #if",
	  "A conditional block of the tool is skipped by the analysis; it could be compiled differently by another compiler. Only a guard of definitions is skipped silently: #ifndef NAME (or #if !defined(NAME)), one-line #defines of NAME and others, #endif.",
	  "Remove dead #if blocks; to supply an optional library macro write #ifndef M_PI / #define M_PI ... / #endif (definitions only, no #else)." },
	{ "stmt_expr", "evasion", E, 0, "5.0", "GNU statement expression",
	  "({ ... }) statement expressions are not allowed.",
	  "Use a function." },
	{ "builtin", "evasion", E, 0, "8.0", "Compiler builtin outside the allowlist",
	  "Only a small set of __builtin_* functions (expect, overflow checks, bit counts, byte swaps, varargs, floating-point classification) is allowed.",
	  "Use the standard library function." },
	{ "fptr_cast", "evasion", E, 0, "9.0", "Conversion to a function pointer",
	  "A value that is not a function is converted to a function pointer.",
	  "Only point to functions by name." },
	{ "indirect_call", "evasion", E, 0, "8.0", "Call through a function pointer",
	  "A call whose callee is not a named function (variable, field, parameter or computed pointer).",
	  "Call functions directly, use a switch, or call through a static const table of your own functions (a policy may lower this rule to a warning)." },
	{ "computed_goto", "evasion", E, 0, "9.0", "Label address or computed goto",
	  "&&label values and goto *expr can jump to an arbitrary address.",
	  "Use a switch statement." },
	{ "implicit_decl", "evasion", E, 0, "8.0", "Implicit function declaration",
	  "A function is called without a prototype (implicit K&R declaration).",
	  "Include the header that declares it." },
	{ "no_prototype", "evasion", E, 0, "7.0", "Function without a prototype",
	  "An old-style (K&R) function definition, or a call through a declaration without a prototype (int f();): the arguments of such a call are not checked, a wrong count or type compiles silently.",
	  "Declare the parameter types in the parentheses: int f(int a, char *b), and int f(void) for none." },
	{ "format_n", "evasion", E, 0, "8.5", "%n in a format string",
	  "A printf-family format holds a %n conversion (also %hhn, %ln, %1$n, %*n...), which stores the count of characters written through a pointer argument: a write primitive that _FORTIFY_SOURCE lets through for a read-only format.",
	  "Use the return value of printf/snprintf for the count." },
	{ "format_string", "evasion", E, 0, "8.0", "Format string that is not a string literal",
	  "The format of a printf-family call is not a string literal (or the forwarded format parameter of a variadic function of the tool that uses it for nothing else), or a printf-family function is used other than by a direct call, so its format cannot be checked.",
	  "Write the format as a string literal, e.g. printf(\"%s\", text) instead of printf(text)." },
	{ "weak_symbol", "evasion", E, 0, "8.5", "Weak or indirect symbol in the object",
	  "The compiled object holds a weak undefined, weak or GNU indirect (ifunc) symbol.",
	  "Remove weak/alias/ifunc attributes." },
	{ "init_section", "evasion", E, 0, "9.0", "Constructor or destructor section",
	  "The compiled object holds .init_array, .fini_array, .ctors, .dtors, .init or .fini.",
	  "Do not use constructor/destructor attributes or section tricks." },
	{ "limits", "limits", E, 1, "5.0", "Analysis limit reached",
	  "The source is too large, too deep, or the analysis ran out of time or memory or crashed.",
	  "Make the tool smaller and simpler." },
	{ "parse", "parse", E, 1, "5.0", "The source does not compile",
	  "The source has a compile error (the compiler's text is not shown: it could echo host files).",
	  "Fix the error at the given line; compile with clang-14 -std=gnu11 -Wall locally (the build uses clang 14)." },
};
const size_t tg_nrules = TG_ARRAY_SIZE(tg_rules);

int tg_rule_index(const char *id)
{
	size_t i;
	if (!id)
		return -1;
	for (i = 0; i < tg_nrules; i++)
		if (strcmp(tg_rules[i].id, id) == 0)
			return (int)i;
	return -1;
}
