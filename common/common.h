/*
 * common/common.h: the one public header of the common module.
 *
 * What every other module shares: error codes and the thread-local error
 * message (libgit2 style), bounded growable buffers, cleanup helpers for
 * __attribute__((cleanup)), safe JSON reading on jansson (duplicate keys
 * rejected, size and depth capped), small file helpers (bounded reads,
 * atomic writes, whole writes), the length-prefixed JSON frames, random
 * bytes, SHA-256 and the canonical digest of a JSON value, and the
 * resolution of the toolgate home.
 *
 * common owns jansson: other modules get json_t through this header and
 * never include <jansson.h> themselves.
 */
#ifndef TG_COMMON_H
#define TG_COMMON_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <jansson.h>

/* ---- errors ------------------------------------------------------------ */

/* Every fallible function returns 0 or one of these negative codes. The
 * specific codes lie below -4095, clear of the -errno values (-1..-4095) that
 * raw system calls and the sandbox's helpers return, so a code can never be
 * mistaken for an errno or the other way round. TG_ERR stays -1: it is the
 * plain "< 0" failure many functions return as a literal, and no code path
 * tells it apart from any other failure. */
enum {
	TG_OK = 0,
	TG_ERR = -1,              /* generic failure */
	TG_ERR_INVALID = -4097,   /* bad input from the user or agent (exit 2) */
	TG_ERR_NOTFOUND = -4098,  /* a named thing does not exist (exit 2) */
	TG_ERR_EXISTS = -4099,    /* already exists (exit 2) */
	TG_ERR_LIMIT = -4100,     /* a size, depth, count or time limit was hit (exit 2) */
	TG_ERR_CONFLICT = -4101,  /* compare-and-swap lost, retry or report (exit 3) */
	TG_ERR_IO = -4102,        /* file system or OS error (exit 3) */
	TG_ERR_NOMEM = -4103,     /* out of memory (exit 3) */
	TG_ERR_UNAVAILABLE = -4104, /* an environment feature is missing (exit 3) */
	TG_ERR_INTERNAL = -4105,  /* a bug or a failure of a library (exit 3) */
	TG_ERR_DENIED = -4106,    /* refused by policy or budget (exit 1) */
};
/* the kernel's errno values end at 4095 (MAX_ERRNO) */
_Static_assert(TG_ERR_INVALID < -4095 && TG_ERR_NOTFOUND < -4095 && TG_ERR_EXISTS < -4095 &&
		       TG_ERR_LIMIT < -4095 && TG_ERR_CONFLICT < -4095 && TG_ERR_IO < -4095 &&
		       TG_ERR_NOMEM < -4095 && TG_ERR_UNAVAILABLE < -4095 &&
		       TG_ERR_INTERNAL < -4095 && TG_ERR_DENIED < -4095,
	       "TG_ERR_* codes must lie outside the -errno range");

typedef struct tg_error {
	int code;
	char message[1024];
} tg_error;

/* Record an error for this thread and return code (so: return tg_error_set(...)). */
int tg_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tg_error_setv(int code, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Same, appending ": strerror(errnum)". */
int tg_error_errno(int code, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefix the current message with "prefix: " and return its code. */
int tg_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last error of this thread; never NULL (code 0, "" when none). */
const tg_error *tg_error_last(void);
void tg_error_clear(void);
/* The process exit status for a code per docs/CONTRACTS.md: 2 bad input, 1 denied, 3 else. */
int tg_error_exit_status(int code);
const char *tg_error_code_name(int code);

/* ---- cleanup helpers --------------------------------------------------- */

#define TG_CLEANUP(fn) __attribute__((cleanup(fn)))
void tg_freep(void *p);          /* free(*(void **)p) */
void tg_closep(int *fd);         /* close(*fd) if >= 0, then *fd = -1 */
void tg_fclosep(FILE **f);       /* fclose(*f) if non-NULL */
void tg_json_decrefp(json_t **j); /* json_decref(*j) */
#define _cleanup_free_ TG_CLEANUP(tg_freep)
#define _cleanup_close_ TG_CLEANUP(tg_closep)
#define _cleanup_fclose_ TG_CLEANUP(tg_fclosep)
#define _cleanup_json_ TG_CLEANUP(tg_json_decrefp)
/* Take ownership out of a cleanup variable. */
#define TG_TAKE_PTR(p) ({ __typeof__(p) _tg_p = (p); (p) = NULL; _tg_p; })
#define TG_TAKE_FD(fd) ({ int _tg_fd = (fd); (fd) = -1; _tg_fd; })
#define TG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- bounded buffers ---------------------------------------------------- */

/* A growable byte buffer that refuses to grow past max (0 = 1 GiB). The
 * content is always NUL-terminated (ptr may be NULL while len == 0). */
typedef struct tg_buf {
	char *ptr;
	size_t len;
	size_t cap;
	size_t max;
} tg_buf;

#define TG_BUF_INIT(maxbytes) { NULL, 0, 0, (maxbytes) }
void tg_buf_init(tg_buf *b, size_t max);
/* TG_ERR_LIMIT when len would pass max (nothing appended), TG_ERR_NOMEM. */
int tg_buf_append(tg_buf *b, const void *data, size_t len);
int tg_buf_puts(tg_buf *b, const char *s);
int tg_buf_printf(tg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tg_buf_clear(tg_buf *b);
/* Hand the content to the caller (free() it); the buffer is left empty.
 * Returns "" allocated when empty; NULL only on allocation failure. */
char *tg_buf_detach(tg_buf *b, size_t *len_out);
void tg_buf_free(tg_buf *b);
/* For TG_CLEANUP(tg_buf_freep). */
void tg_buf_freep(tg_buf *b);

/* ---- JSON on jansson, for untrusted input ------------------------------ */

typedef struct tg_json_limits {
	size_t max_bytes;  /* input size cap; 0 = 1 MiB */
	size_t max_depth;  /* nesting cap; 0 = 64 */
} tg_json_limits;

/* Parse exactly one JSON value from data[0..len): duplicate keys, NUL in
 * strings, invalid UTF-8, trailing garbage, over-size and over-deep input are
 * all rejected with TG_ERR_INVALID or TG_ERR_LIMIT and a message that names
 * the line and column. lim may be NULL for the defaults. */
int tg_json_parse(json_t **out, const char *data, size_t len, const tg_json_limits *lim);
/* Read and parse a file (max_bytes also caps the read). */
int tg_json_parse_file(json_t **out, const char *path, const tg_json_limits *lim);
/* Depth of a value (a scalar is 1). */
size_t tg_json_depth(const json_t *v);
/* Compact, key-order-preserving serialization; caller frees. NULL on OOM.
 * Reals are spelled shortest (tg_json_format_real); hashes that must keep
 * their canonical form call json_dumps directly instead. */
char *tg_json_dump(const json_t *v);
/* Pretty (indent 2) serialization; caller frees. */
char *tg_json_dump_pretty(const json_t *v);
/* The shortest text strtod reads back as d, a real kept a real ("2.0");
 * size >= 32. TG_ERR_INVALID for inf and NaN. */
int tg_json_format_real(char *buf, size_t size, double d);
/* A copy of the JSON text with every real token respelled by
 * tg_json_format_real; strings, integers and layout unchanged. NULL on OOM. */
char *tg_json_shorten_reals(const char *text);
/* Write v compactly plus "\n" to f. */
int tg_json_print(FILE *f, const json_t *v, int pretty);

/* Typed field access on an object. required=1 makes absence TG_ERR_INVALID.
 * Absent and optional: 0 is returned and *out is left unchanged.
 * Wrong type: TG_ERR_INVALID naming the key ("name: must be a string"). */
int tg_json_get_string(const char **out, const json_t *obj, const char *key, int required);
int tg_json_get_int(int64_t *out, const json_t *obj, const char *key, int required);
int tg_json_get_bool(int *out, const json_t *obj, const char *key, int required);
int tg_json_get_object(json_t **out, const json_t *obj, const char *key, int required);
int tg_json_get_array(json_t **out, const json_t *obj, const char *key, int required);
/* TG_ERR_INVALID if obj has a key outside allowed (NULL-terminated list). */
int tg_json_check_keys(const json_t *obj, const char *const *allowed, const char *what);

/* ---- files ------------------------------------------------------------- */

/* Read a whole regular file; TG_ERR_LIMIT if larger than max. *out is
 * NUL-terminated. */
int tg_file_read(char **out, size_t *len_out, const char *path, size_t max);
/* Write via a temporary file in the same folder, fsync, rename, fsync the
 * folder: readers see the old or the new content, never a part. */
int tg_file_write_atomic(const char *path, const void *data, size_t len, int mode);
/* mkdir -p with mode for the folders it creates. */
int tg_mkdir_p(const char *path, int mode);
/* Join two path parts with one '/'; caller frees. */
char *tg_path_join(const char *a, const char *b);
/* Read all of fd until EOF into a buffer capped at max bytes. */
int tg_fd_read_all(char **out, size_t *len_out, int fd, size_t max);
/* Write all of buf, through EINTR and partial writes: 0, or TG_ERR_IO with
 * errno left set. A socket is written with MSG_NOSIGNAL (a peer gone is
 * EPIPE, never SIGPIPE). */
int tg_fd_write_all(int fd, const void *buf, size_t len);
/* Write text into an existing file, neither created nor truncated: a /proc
 * or cgroup control file. 0, or the errno as a negative number (-ENOENT:
 * no such control file) and no message: its callers (the sandbox) test
 * the errno and say the failure themselves. */
int tg_file_write_str(const char *path, const char *text);

/* ---- frames (frame.c) --------------------------------------------------- */

/* A frame is a 4-byte big-endian length, then that many bytes of compact
 * JSON: the tool bridge's messages (docs/BRIDGE.md) and those between
 * `serve --http` and its workers. */
enum { TG_FRAME_STOPPED = 2 };
/* Write v as one frame (tg_json_dump): 0, TG_ERR_IO (errno set), TG_ERR_NOMEM. */
int tg_frame_write(int fd, const json_t *v);
/* Read one frame's text into *json (NUL-terminated, caller frees; the
 * caller parses it) and its length: 1; 0 at end of input (or an error)
 * before its first byte; TG_ERR_INVALID "a frame header was cut short",
 * "an empty frame", "a frame was cut short"; TG_ERR_LIMIT over max bytes;
 * TG_ERR_NOMEM. */
int tg_frame_read(int fd, size_t max, char **json, size_t *len);
/* The same on a socket, waiting with poll and giving up with
 * TG_FRAME_STOPPED (read) or TG_ERR_IO (write) once stop_fd is readable;
 * stop_fd < 0: as above. */
int tg_frame_write_until(int fd, int stop_fd, const json_t *v);
int tg_frame_read_until(int fd, int stop_fd, size_t max, char **json, size_t *len);

/* ---- random (random.c) -------------------------------------------------- */

/* n random bytes from getrandom (EINTR and short reads retried): 0 or
 * TG_ERR_UNAVAILABLE. */
int tg_random_bytes(void *buf, size_t n);
/* nbytes random bytes as lowercase hex into out (2 * nbytes + 1 bytes,
 * terminated; "" on failure). */
int tg_random_hex(char *out, size_t nbytes);

/* ---- shared libraries loaded on first use ------------------------------ */

/* dlopen(path), else dlopen(fallback) when not NULL, then *slots[i] =
 * dlsym(names[i]) for i < n. 0, or TG_ERR_UNAVAILABLE naming the library and
 * what is missing. The handle stays open for the life of the process. */
int tg_dl_load(const char *path, const char *fallback, const char *const *names,
	       void **const *slots, size_t n);

/* A library loaded once per process on first need: what to load (label
 * names it in errors), and the outcome kept for every later caller. */
typedef struct tg_dl_lib {
	const char *label, *path, *fallback;
	const char *const *names;
	void **const *slots;
	size_t n;
	pthread_mutex_t lock;
	int state; /* 0 not tried, 1 loaded, < 0 the error code */
	char error[1024];
} tg_dl_lib;
#define TG_DL_LIB(label, path, fallback, names, slots)                                   \
	{ (label), (path), (fallback), (names), (slots), TG_ARRAY_SIZE(names),              \
	  PTHREAD_MUTEX_INITIALIZER, 0, "" }
/* Load lib on the first call (thread-safe); 0, or its error as "label: why"
 * on this and every later call. */
int tg_dl_need(tg_dl_lib *lib);

/* ---- hashing ----------------------------------------------------------- */

/* libcrypto is loaded on first use (crypto.c). tg_crypto_load: 0, or
 * TG_ERR_UNAVAILABLE; a process that forks without exec and hashes in the
 * child loads it before it forks. The hashing functions below stop the
 * process (exit 3, a message on stderr) when it cannot be loaded: there is
 * no hash to return instead. */
int tg_crypto_load(void);
/* HMAC-SHA256 of data under key into out. 0, or an error. */
int tg_hmac_sha256(unsigned char out[32], const void *key, size_t key_len, const void *data,
		   size_t len);
/* Base64 (RFC 4648, padded, no line breaks) of len bytes into out, which
 * holds 4 * ((len + 2) / 3) + 1 bytes: the length written, or an error. */
int tg_base64_encode(char *out, const void *in, size_t len);
/* The bytes of len base64 characters into out (3 * len / 4 bytes, padding
 * counted as zero bytes): the length written, or an error. */
int tg_base64_decode(unsigned char *out, const char *in, size_t len);
/* The value 0..63 of a character of the standard base64 alphabet, else -1
 * (content.c). */
int tg_base64_value(int c);
/* 1 when a and b hold the same len bytes, compared in constant time. */
int tg_memeq_secret(const void *a, const void *b, size_t len);
/* Zero len bytes at p in a way the compiler keeps. */
void tg_cleanse(void *p, size_t len);

/* OpenSSL's SHA256_CTX (112 bytes) in storage of our own (crypto.c). */
typedef struct tg_sha256 {
	_Alignas(8) unsigned char ctx[128];
} tg_sha256;

void tg_sha256_init(tg_sha256 *s);
void tg_sha256_update(tg_sha256 *s, const void *data, size_t len);
void tg_sha256_final(tg_sha256 *s, unsigned char out[32]);
/* tg_sha256_final as lowercase hex into out[65] (sha256.c). */
void tg_sha256_final_hex(tg_sha256 *s, char out[65]);
/* Hex SHA-256 of data into out[65]. */
void tg_sha256_hex(char out[65], const void *data, size_t len);
/* The digest of a JSON value into out[65]: SHA-256 of "tag\nsubject\n"
 * followed by v's canonical text (json_dumps with JSON_COMPACT |
 * JSON_SORT_KEYS: keys sorted, reals as jansson spells them, non-ASCII as
 * UTF-8). tag NULL: of the canonical text alone (an args_sha256). v NULL:
 * nothing after the tag lines. The stored digests (call bindings
 * "toolgate-call-v1", request digests "toolgate-request-v1", args_sha256)
 * depend on this form: it must not change. out is always filled; 0, or
 * TG_ERR_NOMEM / TG_ERR_INVALID (v not an object or array) when v could
 * not be written (the digest is then of the tag lines alone). */
int tg_json_digest(char out[65], const char *tag, const char *subject, const json_t *v);

/* ---- the C front end (cfront.c) ------------------------------------------ */

/* One front end for the analyzer and the build: the clang 14 driver at
 * tg_cfront_clang_path() compiles with the arguments the analyzer's
 * libclang parsed with, in the same virtual sysroot, the source at the same
 * path. The submitted source is read as TG_CFRONT_MAIN by both. */
#define TG_CFRONT_DIR "/tmp"
#define TG_CFRONT_NAME "tool.c"
#define TG_CFRONT_MAIN TG_CFRONT_DIR "/" TG_CFRONT_NAME
/* Fill argv (at least 48 slots) with the front-end arguments, the overlay
 * file at overlay_path; returns their count (0 when max is too small). The
 * build adds only -c, the source and -o. */
size_t tg_cfront_args(const char **argv, size_t max, const char *overlay_path);
/* The folder holding the tool SDK header toolgate/tool.h (caller frees):
 * <dir of the running binary>/../share/toolgate/include when installed, the
 * source tree's sdk/ for the binary in its build tree (common/sdk.c).
 * TG_ERR_UNAVAILABLE (exit 3) naming the path when it is missing. */
int tg_sdk_dir(char **out);
/* The overlay YAML (caller frees): sdk_dir is the folder holding
 * toolgate/tool.h; with_main maps TG_CFRONT_MAIN to the real file there
 * (the build; the analyzer hands the source in memory). */
int tg_cfront_overlay(char **out, const char *sdk_dir, int with_main);
/* The clang driver and the release both sides must be ("14.0.6"). */
const char *tg_cfront_clang_path(void);
const char *tg_cfront_clang_version(void);
/* 1 if a version text ("Debian clang version 14.0.6", libclang's
 * clang_getClangVersion()) names exactly that release. */
int tg_cfront_version_matches(const char *text);

/* ---- names and the home ------------------------------------------------ */

/* A tool name: ^[a-z][a-z0-9_]{0,63}$. */
int tg_name_valid(const char *name);
/* Copy at most max_in bytes of s into out (outsz bytes, always terminated),
 * writing every control byte (< 0x20, 0x7f) as \xNN: an agent-controlled
 * string made safe to put in a one-line message. */
void tg_str_printable(char *out, size_t outsz, const char *s, size_t max_in);
/* Replace, in place, every byte of s that is not part of a valid UTF-8
 * sequence with '?'. */
void tg_str_utf8_repair(char *s);
/* 0 if s is valid UTF-8 of len bytes with no NUL. */
int tg_utf8_valid(const char *s, size_t len);
/* ---- a tool's content blocks (content.c) -------------------------------- */

/* A tool's result object may carry MCP content blocks in this member
 * (docs/SDK.md); the limits are toolgate's, checked before any client. */
#define TG_CONTENT_KEY "$content"
#define TG_CONTENT_MAX_BLOCKS 16
#define TG_CONTENT_MAX_BINARY (512 * 1024) /* decoded bytes of one data or blob */
#define TG_CONTENT_MAX_TEXT (256 * 1024)   /* bytes of one text */
#define TG_CONTENT_MAX_URI 2048
/* The start of every refusal's message (registry and MCP). */
#define TG_CONTENT_REFUSED "the result's content is refused: "
/* 1 when result is an object with a $content member. */
int tg_content_has(const json_t *result);
/* 0 when result has no $content or a valid one; else -1 with the exact
 * reason in why (n bytes), e.g. "$content[1]: mimeType ... is not allowed". */
int tg_content_check(const json_t *result, char *why, size_t n);
/* The MCP content blocks of a checked result (new reference; NULL on OOM). */
json_t *tg_content_blocks(const json_t *result);
/* The result object without $content, NULL when nothing else is in it. */
json_t *tg_content_rest(const json_t *result);
/* 0 when v is a string of at most TG_CONTENT_MAX_TEXT bytes with no control
 * character but newline and tab; else -1 with the reason naming where. */
int tg_content_text_check(const char *where, const json_t *v, char *why, size_t n);

/* ---- a tool asking its caller for input (input_req.c) ------------------- */

/* A tool's result object {"$input_required": {KEY: {"method", "params"}}}
 * asks the MCP client for input (docs/SDK.md); the client's answers reach
 * the retried run as the argument "$input_responses". The limits: */
#define TG_INPUT_REQUIRED_KEY "$input_required"
#define TG_INPUT_RESPONSES_KEY "$input_responses"
/* The key of a per-call approval's request (mcp/approve.c): no tool's. */
#define TG_INPUT_APPROVAL_KEY "call_approval"
#define TG_INPUT_MAX_REQUESTS 8
#define TG_INPUT_MAX_KEY 64               /* bytes of a request's key */
#define TG_INPUT_MAX_REQUEST (16 * 1024)  /* bytes of one request, as JSON */
#define TG_INPUT_MAX_RESPONSES (64 * 1024) /* bytes of the answers, as JSON */
/* 1 when result is an object with a $input_required member. */
int tg_input_required_has(const json_t *result);
/* 0 when result's $input_required is valid: an object of 1 to
 * TG_INPUT_MAX_REQUESTS requests, each key [A-Za-z0-9_.-] of at most
 * TG_INPUT_MAX_KEY bytes, each value {"method": "elicitation/create" |
 * "sampling/createMessage" | "roots/list", "params": object} of at most
 * TG_INPUT_MAX_REQUEST bytes, every string in it free of control characters
 * but newline and tab, and nothing else in the result; else -1 with the
 * exact reason in why. */
int tg_input_required_check(const json_t *result, char *why, size_t n);
/* The capability a client declares to answer method ("elicitation",
 * "sampling", "roots"), NULL for an unknown method. */
const char *tg_input_capability(const char *method);
/* A retried run is pinned to the version that asked: the MCP server adds
 * this member (an integer) next to the answers, and the registry's call
 * refuses the run when another version is active, then hides the member
 * from the tool. */
#define TG_INPUT_VERSION_KEY "$input_version"
/* args as its input_schema sees it: without TG_INPUT_RESPONSES_KEY and
 * TG_INPUT_VERSION_KEY, which are no arguments of the schema (a new
 * reference; NULL on OOM). */
json_t *tg_input_args_bare(const json_t *args);
/* args as the tool reads them: without TG_INPUT_VERSION_KEY (a new
 * reference; NULL on OOM). */
json_t *tg_input_args_for_tool(const json_t *args);
/* 0 when args pins no version or version v; else -1 with the reason. */
int tg_input_pin_check(const json_t *args, unsigned v, char *why, size_t n);

/* ---- text for a terminal (common/term.c) -------------------------------- */

/* Flags of tg_term_scrub: TG_TERM_LINE for a one-line field (newline and tab
 * become markers too), TG_TERM_BLOCK for multi-line text (they are kept). */
enum { TG_TERM_LINE = 0, TG_TERM_BLOCK = 1 };
/* 1 when code point cp must never reach a terminal raw: C0 controls, DEL,
 * C1 controls (U+0080..U+009F) and the bidirectional controls. */
int tg_term_unsafe(uint32_t cp);
/* 1 for the bidirectional controls U+202A..U+202E, U+2066..U+2069, U+200E,
 * U+200F, U+061C (CVE-2021-42574). */
int tg_term_bidi(uint32_t cp);
/* Copy len bytes of s with every unsafe character replaced by a visible
 * marker: "^[" (C0, "^?" for DEL), "<U+009B>" (C1, bidi), "\xNN" (a byte
 * that is not UTF-8). Caller frees; NULL on OOM. s may be NULL (""). */
char *tg_term_scrub(const char *s, size_t len, unsigned flags);
int tg_term_scrub_buf(tg_buf *out, const char *s, size_t len, unsigned flags);
/* A serialized JSON text with DEL, C1 and bidi controls written as \uXXXX
 * (jansson already escapes C0): the same value, safe on a terminal. */
char *tg_term_json_escape(const char *json);

/* The home: flag, else $TOOLGATE_HOME, else $XDG_DATA_HOME/toolgate, else
 * $HOME/.local/share/toolgate. Caller frees. */
int tg_home_resolve(char **out, const char *flag);
/* Milliseconds on CLOCK_MONOTONIC (durations and deadlines within one
 * boot; never stored) / seconds since the epoch / milliseconds since the
 * epoch (expiries that are stored or sealed: they must mean the same after
 * a reboot, when CLOCK_MONOTONIC starts again near 0). */
uint64_t tg_now_ms(void);
int64_t tg_time_now(void);
int64_t tg_wall_ms(void);

/* A cancellation signal shared between threads (cancel.c): one thread
 * fires it (an MCP client's notifications/cancelled), the ones doing the
 * work see it through tg_cancel_fired() or poll tg_cancel_fd(), readable
 * from the moment it fires until tg_cancel_reset(). */
typedef struct tg_cancel tg_cancel;
int tg_cancel_new(tg_cancel **out);
void tg_cancel_free(tg_cancel *c);
void tg_cancel_fire(tg_cancel *c);
int tg_cancel_fired(const tg_cancel *c); /* NULL: 0 */
int tg_cancel_fd(const tg_cancel *c);
void tg_cancel_reset(tg_cancel *c);

/* The call profile (prof.c; docs/RELIABILITY.md, "Call path performance"):
 * off unless $TG_CALL_PROFILE names a file when tg_prof_init() runs (serve
 * calls it). Then each stage of a call is stamped (CLOCK_MONOTONIC, any
 * thread), other threads' spans (the pool's refill) are kept, and
 * tg_prof_flush() appends one line per tools/call to the file. Off, a mark
 * is one load of tg_prof_on. */
enum {
	TG_PROF_READ,          /* the request's bytes are readable */
	TG_PROF_PARSED,        /* JSON-RPC parsed, dispatched */
	TG_PROF_CALL,          /* tools/call entered (after the cancel watcher) */
	TG_PROF_LOOKUP,        /* tool row and cached schema */
	TG_PROF_CHECKED,       /* arguments valid, approval stands, binary found */
	TG_PROF_INTENT_COMMIT, /* intent transaction committed (in the WAL) */
	TG_PROF_INTENT_SYNC,   /* ... durable (fdatasync) */
	TG_PROF_SLOT,          /* run slot taken, run starts */
	TG_PROF_POOL_TAKEN,    /* pooled: an entry taken */
	TG_PROF_HANDED,        /* pooled: limits lowered, run sent to the child */
	TG_PROF_SETUP,         /* unpooled: the child is ready to exec */
	TG_PROF_PIPES_EOF,     /* the tool's output is complete */
	TG_PROF_REAPED,        /* its init is reaped */
	TG_PROF_RUN_DONE,      /* tg_sandbox_run returned */
	TG_PROF_RESULT,        /* output parsed and checked */
	TG_PROF_OUTCOME_COMMIT,/* outcome transaction committed */
	TG_PROF_OUTCOME_SYNC,  /* ... durable */
	TG_PROF_REPLY,         /* reply built and queued */
	TG_PROF_WRITTEN,       /* reply written to the client */
	TG_PROF_N
};
extern int tg_prof_on;
void tg_prof_init(void);
void tg_prof_mark_(int stage);
#define tg_prof_mark(stage)                                                            \
	do {                                                                           \
		if (tg_prof_on)                                                        \
			tg_prof_mark_(stage);                                          \
	} while (0)
uint64_t tg_prof_ns(void);
/* a span of another thread's work ("make", "release"), start and end */
void tg_prof_span(const char *what, uint64_t t0_ns, uint64_t t1_ns);
void tg_prof_flush(void);

#endif
