/*
 * analyzer/internal.h: what the files of the analyzer module share and
 * nobody else sees: the rule table, the policy layout, the finding list
 * that the pre-scan, the libclang child and the object reader fill, the
 * symbol tables, and the virtual sysroot.
 */
#ifndef TG_ANALYZER_INTERNAL_H
#define TG_ANALYZER_INTERNAL_H

#include "analyzer.h"

/* ---- rules ---------------------------------------------------------------- */

typedef struct tg_rule {
	const char *id;
	const char *category;
	tg_severity severity;   /* default */
	int floor_error;        /* 1: a policy may not lower it (analysis incomplete) */
	const char *security_severity; /* SARIF properties.security-severity */
	const char *short_desc;
	const char *full_desc;
	const char *help;
} tg_rule;

extern const tg_rule tg_rules[];
extern const size_t tg_nrules;
/* Index of a rule id in tg_rules, or -1. */
int tg_rule_index(const char *id);
/* The allowed alternative for a finding of rule on symbol (may be NULL):
 * a symbol-specific hint, else the rule's (hints.c). Static text. */
const char *tg_hint_for(const char *rule, const char *symbol);

/* ---- policy --------------------------------------------------------------- */

#define TG_POLICY_MAX_NAMES 4096
#define TG_SYMBOL_MAX 128

struct tg_policy {
	char **allow;        /* sorted, unique: the effective symbol allowlist */
	size_t nallow;
	char **extra;        /* as given in the JSON (for to_json) */
	size_t nextra;
	char **removed;
	size_t nremoved;
	tg_severity *severity; /* per rule, indexed like tg_rules */
	unsigned char *sev_set; /* 1 where the JSON set a severity */
};

/* 1 when name is on p's allowlist. */
int tg_policy_allows(const tg_policy *p, const char *name);
/* 1 when the linker name is allowed: on the list, or a fortify / isoc99 /
 * isoc23 variant of an allowed function, or a compiler runtime helper. */
int tg_policy_allows_linker(const tg_policy *p, const char *name);

/* 1 when a __builtin_* name is allowed: on the builtin list, or
 * __builtin_<f> / __builtin___<f>_chk for an f that p allows. */
int tg_builtin_allowed(const tg_policy *p, const char *name);
/* A JSON array of the n strings of v (NULL when out of memory). */
json_t *tg_strv_json(char *const *v, size_t n);

/* ---- guards.c ------------------------------------------------------------- */

/* 1 when the #if-skipped text (from its #if to its #endif) is a guard of
 * definitions only: #ifndef NAME (or #if !defined(NAME)), blank lines and
 * one-line #defines, one of them of NAME, then #endif. */
int tg_guard_defines_only(const char *text, size_t len);

/* ---- symbol tables (symbols.c) -------------------------------------------- */

/* The built-in allowlist, NULL-terminated (math names get f/l variants). */
size_t tg_builtin_allowlist(const char ***out);
/* Category rule id of a known-dangerous name ("process", ...), or NULL. */
const char *tg_symbol_category(const char *name);
/* read and write (the SDK's bridge on fd 3), openat, fdopen and close (its
 * tg_workspace_open): allowed in the SDK's headers and in the object,
 * refused in a tool's code. */
int tg_symbol_sdk_io(const char *name);
/* 1 when an attribute name (without __) is in the small allowed set. */
int tg_attribute_allowed(const char *name);
/* 1 when a reserved identifier (leading "__" or "_" + capital, or "_") may
 * appear in a tool's source. */
int tg_reserved_allowed(const char *name, size_t len);
/* 1 for a feature-test macro (_GNU_SOURCE, _POSIX_C_SOURCE, ...). */
int tg_feature_macro(const char *name, size_t len);
/* The NULL-terminated allowed headers, builtins and attributes. */
const char *const *tg_include_list(void);
const char *const *tg_builtin_list(void);
const char *const *tg_attribute_list(void);
/* 1 when the include name (between <> or "") is allowed. */
int tg_include_allowed(const char *name);
/* Functions whose path arguments are checked: the indexes of the path
 * arguments in mask (bit i = argument i), and whether they write. */
int tg_path_function(const char *name, unsigned *argmask);
/* read and write: allowed only as a direct call on a constant standard
 * descriptor (read on 0, write on 1 or 2); *write says which. */
int tg_fd_function(const char *name, int *write);

/* ---- printf-family formats (format.c) -------------------------------------- */

/* The index of the format argument of a printf-family function (printf,
 * fprintf, ..., their __*_chk and __builtin_ forms, the wide ones), or -1. */
int tg_format_function(const char *name);
/* The first %n conversion (%n, %hhn, %1$n, %*n, ...) in a format as
 * clang_getCursorSpelling shows a string literal (prefix, quotes, escapes:
 * every '%' of it is a '%' of the string), or NULL; *len is its length.
 * "%%" is a literal percent sign. */
const char *tg_format_find_n(const char *spelled, size_t *len);

/* ---- findings -------------------------------------------------------------- */

#define TG_MAX_FINDINGS 200
#define TG_MSG_MAX 400

typedef struct tg_flist {
	tg_finding *v;
	size_t n, cap;
	int truncated;
	int oom;
} tg_flist;

/* Append a finding (rule must be in tg_rules; severity and category are
 * filled from p). Identical rule+line+column+symbol findings are merged. */
void tg_flist_add(tg_flist *l, const tg_policy *p, const char *rule, unsigned line,
		  unsigned column, const char *symbol, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
void tg_flist_free(tg_flist *l);
/* Turn the list into a report (the list is emptied). */
int tg_flist_to_report(tg_report **out, tg_flist *l, uint64_t elapsed_ms);

/* ---- pre-scan (prescan.c) -------------------------------------------------- */

typedef struct tg_prescan {
	int blocking;   /* 1: do not hand the source to clang at all */
	/* when not blocking: the source to parse (refused directive lines
	 * blanked, same length and line breaks); free with tg_prescan_free */
	char *clean;
} tg_prescan;

/* Lexical checks on the raw bytes: size, NUL, trigraphs, every #include
 * against the allowlist, computed includes, __has_include, pragmas,
 * _Pragma, line markers, #line and unknown directives. */
void tg_prescan_run(tg_prescan *st, tg_flist *l, const tg_policy *p, const char *src,
		    size_t len, size_t max_bytes);
void tg_prescan_free(tg_prescan *st);

/* ---- the libclang side (clangcheck.c, runs in the child) ------------------- */

typedef struct tg_clang_job {
	const tg_policy *policy;
	const char *source;
	size_t len;
	const char *overlay_path;   /* -ivfsoverlay file */
	const char *const *capabilities;
	size_t ncapabilities;
} tg_clang_job;

/* Parse and walk; findings go to l. Returns 0, or a negative code when the
 * parse itself failed (a finding describing it is added anyway). */
int tg_clang_check(tg_flist *l, const tg_clang_job *job);
/* dlopen libclang once per process (clang_dl.c); 0 or TG_ERR_UNAVAILABLE */
int tg_clang_load(void);

/* ---- virtual sysroot (vfs.c) ----------------------------------------------- */

#define TG_VFS_MAIN TG_CFRONT_MAIN
/* The overlay YAML text for the given SDK folder (caller frees). */
int tg_vfs_yaml(char **out, const char *sdk_dir);
/* The SDK folder to use for opts (never NULL). */
const char *tg_vfs_sdk_dir(const tg_analyze_opts *opts);

/* ---- the parse child (child.c) --------------------------------------------- */

/* What one parse needs: the same in a fork and in a fresh image. clang's
 * overlay_path is the child's own (its file of yaml), set there. */
typedef struct tg_parse_job {
	tg_clang_job clang;
	const char *yaml;           /* the overlay's text */
	uint32_t timeout_ms;
	uint32_t memory_mb;
} tg_parse_job;

/* The parse child's exit codes beyond 0 (its answer is on the pipe); a
 * fresh image's are the environment's failures, not verdicts. */
#define TG_PARSE_NO_OVERLAY 122  /* no file for the overlay */
#define TG_PARSE_NO_CLANG 124    /* a fresh image could not load libclang */
#define TG_PARSE_BAD_JOB 125     /* a fresh image got no usable job */
#define TG_PARSE_NO_CONFINE 126  /* its confinement hook failed */

/* Start the parse child, its answer to go to wfd: a fresh image when
 * tg_analyze_main() ran, else a fork. The child's pid, or -1 with the error
 * set. */
pid_t tg_parse_start(int wfd, const tg_parse_job *j);
/* 1 when parse children are fresh images (tg_analyze_main() ran). */
int tg_parse_spawns(void);

/* ---- findings over the pipe (analyze.c) ------------------------------------ */

int tg_flist_serialize(char **out, size_t *len, const tg_flist *l);
int tg_flist_deserialize(tg_flist *l, const tg_policy *p, const char *data, size_t len);

#endif
