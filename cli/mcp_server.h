/*
 * cli/mcp_server.h: the MCP server behind `toolgate serve`, internal to cli/.
 *
 * Three layers, each testable on its own:
 *  - the line reader (mcp_reader.c): newline-delimited messages from a file
 *    descriptor with a hard cap per line; the rest of an over-long line is
 *    discarded as it arrives, so memory stays bounded whatever the peer sends;
 *  - the session (mcp_server.c, mcp_tools.c): JSON-RPC 2.0 framing and errors,
 *    the initialize handshake and version negotiation, tools/list with
 *    pagination, tools/call of the meta-tools and of registered tools, the
 *    governance budgets, and notifications/tools/list_changed; it writes its
 *    messages into an output buffer, one JSON document plus "\n" each;
 *  - the backend (tg_mcp_backend): the registry calls, a table of function
 *    pointers. mcp_registry.c fills it with tg_registry_*; the unit tests use a
 *    fake, so the protocol layer is tested without a home on disk.
 */
#ifndef TG_CLI_MCP_SERVER_H
#define TG_CLI_MCP_SERVER_H

#include "common/common.h"
#include "registry/registry.h"

/* The protocol versions spoken, newest first; the first is sent when the
 * client asks for one not in the list. */
#define TG_MCP_PROTOCOL_LATEST "2025-11-25"
#define TG_MCP_PROTOCOL_FALLBACK "2025-06-18"

#define TG_MCP_MAX_MESSAGE ((size_t)4 << 20) /* 4 MiB per line */
#define TG_MCP_PAGE_SIZE 100
#define TG_MCP_POLL_MS 250

/* JSON-RPC 2.0 error codes. */
enum {
	TG_RPC_PARSE_ERROR = -32700,
	TG_RPC_INVALID_REQUEST = -32600,
	TG_RPC_METHOD_NOT_FOUND = -32601,
	TG_RPC_INVALID_PARAMS = -32602,
	TG_RPC_INTERNAL_ERROR = -32603,
};

/* ---- line reader --------------------------------------------------------- */

typedef struct tg_mcp_reader {
	int fd;
	size_t max;        /* longest accepted line, without its "\n" */
	char *buf;
	size_t start;      /* first unconsumed byte */
	size_t len;        /* end of the valid bytes */
	size_t cap;
	size_t scanned;    /* bytes after start already searched for "\n" */
	int discarding;    /* inside an over-long line: drop up to the next "\n" */
	int eof;
} tg_mcp_reader;

enum {
	TG_MCP_READ_NONE = 0,     /* no complete line buffered */
	TG_MCP_READ_LINE = 1,     /* line and len: one line, without "\n" or "\r\n" */
	TG_MCP_READ_OVERSIZE = 2, /* a line passed max: reported once, then dropped */
	TG_MCP_READ_EOF = 3,      /* end of input and nothing left */
};

/* max 0 = TG_MCP_MAX_MESSAGE. The reader does not own fd. */
void tg_mcp_reader_init(tg_mcp_reader *r, int fd, size_t max);
void tg_mcp_reader_free(tg_mcp_reader *r);
/* One read(2) into the buffer: 1 bytes read, 0 end of input, or a negative
 * TG_ERR_IO (EINTR and EAGAIN count as 1 with nothing read). */
int tg_mcp_reader_fill(tg_mcp_reader *r);
/* Take the next buffered line (valid until the next call) without reading. */
int tg_mcp_reader_next(tg_mcp_reader *r, const char **line, size_t *len);

/* ---- backend ------------------------------------------------------------- */

/* The registry operations the server needs, with tg_registry_* semantics
 * (registry/registry.h); ctx is passed back as the first argument. */
typedef struct tg_mcp_backend {
	void *ctx;
	int (*list)(void *ctx, json_t **out);
	int (*create)(void *ctx, json_t **out, const tg_submission *sub, const tg_actor *who);
	int (*call)(void *ctx, json_t **out, const char *name, const json_t *args,
		    const tg_actor *who);
	int (*rollback)(void *ctx, json_t **out, const char *name, unsigned to, unsigned flags,
			const tg_actor *who);
	int (*history)(void *ctx, json_t **out, const char *name);
	int (*audit)(void *ctx, const tg_actor *who, const char *event, const char *tool,
		     const json_t *details);
	int (*generation)(void *ctx, uint64_t *out);
} tg_mcp_backend;

/* The registry as a backend (mcp_registry.c). r stays owned by the caller. */
void tg_mcp_backend_registry(tg_mcp_backend *out, tg_registry *r);

/* ---- session --------------------------------------------------------------- */

typedef struct tg_mcp_options {
	uint32_t max_calls;     /* tools/call attempts per session; 0 = unlimited */
	uint32_t max_creates;   /* create_tool submissions per session; 0 = unlimited */
	int hide_write_tools;   /* keep workspace:write tools out of the session */
	size_t page_size;       /* tools/list page; 0 = TG_MCP_PAGE_SIZE */
	size_t max_message;     /* 0 = TG_MCP_MAX_MESSAGE */
	unsigned poll_ms;       /* toolset generation poll; 0 = TG_MCP_POLL_MS */
	const char *version;    /* serverInfo.version */
	const char *session;    /* session id; NULL = 32 random hex digits */
	const json_t *policy;   /* toolgate://policy (tg_policy_effective); NULL = none */
} tg_mcp_options;

typedef struct tg_mcp_server tg_mcp_server;

int tg_mcp_server_new(tg_mcp_server **out, const tg_mcp_backend *be, const tg_mcp_options *opt);
void tg_mcp_server_free(tg_mcp_server *s);
const char *tg_mcp_server_session(const tg_mcp_server *s);

/* Handle one received line. Answers (zero or more lines) are appended to the
 * output buffer. Protocol errors are answers, not failures: a negative return
 * means the server cannot go on (out of memory). */
int tg_mcp_server_handle(tg_mcp_server *s, const char *line, size_t len);
/* Answer an over-long line (JSON-RPC error, id null). */
int tg_mcp_server_oversize(tg_mcp_server *s);
/* Compare the toolset generation with the last one seen and queue
 * notifications/tools/list_changed if it moved (only once initialized). */
int tg_mcp_server_check_toolset(tg_mcp_server *s);
/* The pending output; the caller writes it out and clears it. */
tg_buf *tg_mcp_server_output(tg_mcp_server *s);
/* Counters of the session, for tests and the closing audit event. */
void tg_mcp_server_counts(const tg_mcp_server *s, uint64_t *calls, uint64_t *creates,
			  uint64_t *denied);
/* The session's end: audit event with the counters. */
int tg_mcp_server_close(tg_mcp_server *s);

/* Serve in_fd/out_fd until end of input: read lines, answer, poll the
 * toolset generation every poll_ms. 0 at end of input, negative on an I/O
 * failure (e.g. the client closed our stdout). */
int tg_mcp_serve(tg_mcp_server *s, int in_fd, int out_fd);

/* ---- internals shared by mcp_server.c and mcp_tools.c ---------------------- */

/* Queue {"jsonrpc":"2.0","id":id,"result":result}; steals result. */
int tg_mcp_reply(tg_mcp_server *s, const json_t *id, json_t *result);
/* Queue a JSON-RPC error answer; id NULL = null. */
int tg_mcp_reply_error(tg_mcp_server *s, const json_t *id, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Make a message valid UTF-8: control bytes become '?', and so do all
 * bytes >= 0x80 when the whole is not valid UTF-8. */
void tg_mcp_sanitize(char *msg);
/* "toolgate: serve: WHAT[ EVENT]: <last error>" on stderr, the message
 * scrubbed for the terminal (tg_term_scrub). */
void tg_mcp_log_error(const char *what, const char *event);
/* The tools/list entries of the meta-tools (a new array). */
json_t *tg_mcp_meta_tools(void);
/* 1 if name is one of the meta-tools. */
int tg_mcp_is_meta_tool(const char *name);
/* tools/call (params already checked to be an object or NULL). */
int tg_mcp_tools_call(tg_mcp_server *s, const json_t *id, const json_t *params);
/* The registered tools visible in this session: the backend's list without
 * names that clash with a meta-tool and, with hide_write_tools, without
 * workspace:write tools. *out is a new array sorted by name. */
int tg_mcp_visible_tools(tg_mcp_server *s, json_t **out);

/* Session state visible to mcp_tools.c. */
struct tg_mcp_server {
	tg_mcp_backend be;
	tg_mcp_options opt;
	char session[65];
	tg_actor actor;
	int initialized;         /* initialize answered */
	int client_ready;        /* notifications/initialized received */
	char protocol[16];
	char client_name[129];
	char client_version[65];
	uint64_t calls, creates, denied;
	uint64_t generation;
	int have_generation;
	int generation_failed;   /* logged once */
	int toolset_dirty;       /* a request may have changed the toolset */
	tg_buf out;
};

#endif
