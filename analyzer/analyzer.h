/*
 * analyzer/analyzer.h: the public interface of the static vetting module.
 *
 * The analyzer decides, before anything is compiled, whether a submitted C11
 * source may become a tool: default-deny on external symbols, include
 * allowlist, evasion and analysis-bomb resistance (libclang 14 runs in a
 * forked, rlimited child). After the build, tg_analyze_object() checks the
 * object file's undefined symbols against the same allowlist.
 *
 * Only analyzer/ includes clang-c/Index.h.
 */
#ifndef TG_ANALYZER_H
#define TG_ANALYZER_H

#include "common/common.h"

typedef enum tg_severity {
	TG_SEV_NOTE = 0,
	TG_SEV_WARNING = 1,
	TG_SEV_ERROR = 2,
} tg_severity;

typedef struct tg_finding {
	char *rule;      /* stable id, e.g. "process", "network", "include" */
	char *category;  /* group: process, network, dynamic_code, raw_syscall,
			    privilege, environment, file_access, evasion,
			    include, limits, not_allowed, parse */
	tg_severity severity;
	char *message;   /* safe to show to the agent: never echoes host files */
	unsigned line;   /* expansion location in the submitted file; 0 = none */
	unsigned column;
	char *symbol;    /* the symbol concerned, or NULL */
	char *hint;      /* the allowed alternative ("use fread on stdin"), or NULL */
} tg_finding;

typedef struct tg_report {
	int pass;               /* 1 when no error-level finding */
	size_t nfindings;
	tg_finding *findings;
	uint64_t elapsed_ms;
} tg_report;

typedef struct tg_policy tg_policy;

/* Options for one analysis. */
typedef struct tg_analyze_opts {
	/* capability names granted to the tool ("workspace:read",
	 * "workspace:write"); they widen the file-access rule to /workspace. */
	const char *const *capabilities;
	size_t ncapabilities;
	/* Folder holding the tool SDK header (toolgate/tool.h); NULL for the
	 * built-in default (tg_sdk_dir: beside the binary, or the source
	 * tree's sdk/ for the binary in its build tree). */
	const char *sdk_include_dir;
	/* Limits for the parse child; 0 = defaults (5 s, 1 GiB, 1 MiB input). */
	uint32_t timeout_ms;
	uint32_t memory_mb;
	size_t max_source_bytes;
} tg_analyze_opts;

/* The built-in default policy. */
int tg_policy_default(tg_policy **out);
/* The default policy overridden by a JSON document (format in
 * docs/POLICY.md). TG_ERR_INVALID with a precise message on bad input. */
int tg_policy_from_json(tg_policy **out, const char *json, size_t len);
/* tg_policy_from_json on a file; a missing file gives the default policy. */
int tg_policy_load(tg_policy **out, const char *path);
/* The effective policy as JSON (for docs and `toolgate check --policy`). */
int tg_policy_to_json(json_t **out, const tg_policy *p);
/* The effective policy as an agent or operator reads it (docs/POLICY.md):
 * {"version":1,"headers":[..],"allow":[every allowed symbol, sorted],
 *  "builtins":[..],"attributes":[..],"checked":{name: rule text},
 *  "rules":[{"id","category","severity","summary","hint"}],"deny":[..]}.
 * For `toolgate policy --json` and the MCP resource toolgate://policy. */
int tg_policy_effective(json_t **out, const tg_policy *p);
void tg_policy_free(tg_policy *p);

/* Vet a source held in memory. filename is only used in messages and SARIF.
 * Returns 0 with a report (pass or reject) or a negative code when the
 * analysis itself could not run (the report is then NULL). */
int tg_analyze(tg_report **out, const tg_policy *p, const char *filename,
	       const char *source, size_t len, const tg_analyze_opts *opts);

/* Added: for a program's main(), first thing (before any thread). With
 * argv naming the parse child it runs that child and does not return;
 * otherwise from then on each parse child is a fresh image of this program
 * (posix_spawn of /proc/self/exe), not a fork: it holds none of the
 * caller's memory (a server's tokens) and none of the locks its other
 * threads held (docs/ANALYZER.md, "The parse child"). confine (may be
 * NULL) runs in the child once libclang is loaded and the limits are set,
 * before the parse: toolgate passes tg_sandbox_confine_parse (its seccomp
 * filter); a child it fails for ends before parsing, an environment error.
 * A program that does not call it forks its parse children, unconfined. */
typedef int (*tg_analyze_confine_fn)(void);
void tg_analyze_main(int argc, char **argv, tg_analyze_confine_fn confine);

/* The second, independent check: every undefined symbol of the ELF object
 * file at path must be on the policy's allowlist. */
int tg_analyze_object(tg_report **out, const tg_policy *p, const char *path,
		      const tg_analyze_opts *opts);

/* The check --json shape (docs/CONTRACTS.md): {"verdict":..,"findings":[..]}. */
int tg_report_to_json(json_t **out, const tg_report *r);
/* SARIF 2.1.0 with tool.driver.rules; uri names the artifact. */
int tg_report_to_sarif(json_t **out, const tg_report *r, const char *uri);
const char *tg_severity_name(tg_severity s);
void tg_report_free(tg_report *r);

#endif
