/*
 * mcp/mcp.h: the MCP server behind `toolgate serve`, the public header of mcp/:
 * what cli/ and the tests use. What the files of mcp/ share is mcp/internal.h.
 *
 * Three layers, each testable on its own:
 *  - the line reader (reader.c): newline-delimited messages from a file
 *    descriptor with a hard cap per line; the rest of an over-long line is
 *    discarded as it arrives, so memory stays bounded whatever the peer sends;
 *  - the session (server.c and the files behind mcp/internal.h): JSON-RPC
 *    2.0 framing and errors, the initialize handshake and version
 *    negotiation, tools/list with pagination, tools/call of the meta-tools
 *    and of registered tools, the governance budgets, and
 *    notifications/tools/list_changed; it writes its messages into an
 *    output buffer, one JSON document plus "\n" each;
 *  - the backend (tg_mcp_backend): the registry calls, a table of function
 *    pointers. backend.c fills it with tg_registry_*; the unit tests use a
 *    fake, so the protocol layer is tested without a home on disk.
 */
#ifndef TG_MCP_MCP_H
#define TG_MCP_MCP_H

#include "common/common.h"
#include "registry/registry.h"

#include <pthread.h>

/* The protocol versions spoken, newest first; the first is sent when the
 * client asks for one not in the list. */
#define TG_MCP_PROTOCOL_LATEST "2025-11-25"
#define TG_MCP_PROTOCOL_FALLBACK "2025-06-18"
/* Older initialize eras still spoken (mcp/era.c): 2025-03-26 with JSON-RPC
 * batches, 2024-11-05 without; results are cut to each era's shapes. */
#define TG_MCP_PROTOCOL_2025_03 "2025-03-26"
#define TG_MCP_PROTOCOL_2024_11 "2024-11-05"
/* The longest JSON-RPC batch served (2025-03-26): longer ones are -32600. */
#define TG_MCP_BATCH_MAX 64
/* The responses of one batch: once they pass this many times the line cap
 * (opt.max_message), its further requests are refused unserved. */
#define TG_MCP_BATCH_ANSWERS 4
/* The modern (stateless) revision: no initialize, per-request _meta. */
#define TG_MCP_PROTOCOL_MODERN "2026-07-28"
#define TG_MCP_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define TG_MCP_META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define TG_MCP_META_CLIENT "io.modelcontextprotocol/clientInfo"
#define TG_MCP_META_SUB "io.modelcontextprotocol/subscriptionId"
/* 2026-07-28: the least severe log level a request wants (no logging/setLevel) */
#define TG_MCP_META_LOGLEVEL "io.modelcontextprotocol/logLevel"

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
	TG_RPC_HEADER_MISMATCH = -32020,      /* 2026-07-28, HTTP only */
	TG_RPC_UNSUPPORTED_VERSION = -32022,  /* 2026-07-28 */
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
	/* hooks: the session's (its principal and budget hold for the bridged
	 * calls of the submission's tests), or NULL */
	int (*create)(void *ctx, json_t **out, const tg_submission *sub, const tg_actor *who,
		      const tg_call_hooks *hooks);
	int (*call)(void *ctx, json_t **out, const char *name, const json_t *args,
		    const tg_actor *who);
	int (*rollback)(void *ctx, json_t **out, const char *name, unsigned to, unsigned flags,
			const tg_actor *who);
	int (*history)(void *ctx, json_t **out, const char *name);
	int (*audit)(void *ctx, const tg_actor *who, const char *event, const char *tool,
		     const json_t *details);
	int (*generation)(void *ctx, uint64_t *out);
	/* Optional (NULL in the unit tests' fake): a registered tool's call
	 * and a one-off program (run_program), with the session's hooks into
	 * their bridged calls (its call budget, elicitation). */
	int (*call_hooked)(void *ctx, json_t **out, const char *name, const json_t *args,
			   const tg_actor *who, const tg_call_hooks *hooks);
	int (*run)(void *ctx, json_t **out, const tg_program *p, const tg_actor *who,
		   const tg_call_hooks *hooks);
	/* Optional: the requestState of the 2026-07-28 input_required result
	 * (tg_registry_state_seal / _redeem). Without them a call that needs
	 * a person waits on the queue in that era. */
	int (*state_seal)(void *ctx, char **out, const json_t *payload, const char *principal,
			  const char *request_sha256);
	int (*state_redeem)(void *ctx, json_t **out, const char *state, const char *principal,
			    const char *request_sha256);
	/* Optional: the cancellation of the request in flight (NULL clears). */
	void (*set_cancel)(void *ctx, const tg_cancel *c);
	/* 1 when call and call_hooked append the session's "mcp_call" audit
	 * entry themselves, in the durable transaction of the call's outcome
	 * (tg_registry_call_logged: one commit and one fsync less per call);
	 * 0 (the unit tests' fake): the server appends it after the call. */
	int logs_calls;
} tg_mcp_backend;

/* The registry as a backend (backend.c). r stays owned by the caller. */
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
	const char *principal;  /* HTTP: the token's name, shown in the audit actor */
	const json_t *tool_patterns; /* HTTP: fnmatch patterns of visible tools; NULL = all */
	struct tg_mcp_quota *quota;  /* shared budget counters (a principal's); NULL = own */
	const json_t *policy;   /* toolgate://policy (tg_policy_effective); NULL = none */
	int workspace;          /* the home's config.json sets "workspace" (create_tool's
				 * description says whether it does) */
	int may_approve;        /* HTTP: the token's --may-approve (a session without a
				 * principal, stdio, is the local operator's: it may) */
} tg_mcp_options;

/* Budget counters shared by every session of one principal (HTTP). */
typedef struct tg_mcp_quota {
	pthread_mutex_t lock;
	uint64_t calls, creates;
} tg_mcp_quota;

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
/* 1 when the session kept sending refused requests after one of its
 * budgets was spent, TG_MCP_SESSION_REFUSED_END of them (refusals.c):
 * its transport ends it. */
#define TG_MCP_SESSION_REFUSED_END 256
int tg_mcp_server_ended(const tg_mcp_server *s);
void tg_mcp_server_counts(const tg_mcp_server *s, uint64_t *calls, uint64_t *creates,
			  uint64_t *denied);
/* The session's end: audit event with the counters. */
int tg_mcp_server_close(tg_mcp_server *s);

/* Serve in_fd/out_fd until end of input: read lines, answer, poll the
 * toolset generation every poll_ms. 0 at end of input, negative on an I/O
 * failure (e.g. the client closed our stdout). */
int tg_mcp_serve(tg_mcp_server *s, int in_fd, int out_fd);

/* ---- Streamable HTTP (http.c) ---------------------------------------------- */

typedef struct tg_mcp_http_options {
	const char *home;           /* the toolgate home (each worker opens its registry) */
	const char *addr;           /* numeric IPv4 or IPv6 address, or "localhost" */
	uint16_t port;              /* 0 = any free port (reported through on_ready) */
	int allow_remote;           /* a non-loopback address is refused without it */
	int no_auth;                /* --insecure-no-auth: loopback only, principal "anonymous" */
	unsigned max_connections;   /* 0 = 64 */
	unsigned workers;           /* registry worker processes (calls at once); 0 = 4 */
	unsigned idle_timeout_s;    /* a connection silent this long is closed; 0 = 30 */
	unsigned request_timeout_ms; /* a request must arrive whole within this; 0 = 10000 */
	size_t max_body;            /* 0 = TG_MCP_MAX_MESSAGE */
	size_t max_header;          /* request line and headers; 0 = 16 KiB */
	/* before a token is checked (docs/MCP.md, "Hostile load") */
	unsigned header_timeout_ms; /* an unauthenticated request, whole; 0 = 2000 */
	unsigned unauth_per_ip;     /* unauthenticated connections per address; 0 = no limit */
	unsigned auth_reserve_pct;  /* % of max_connections unauthenticated ones may not hold (0-90) */
	size_t body_budget;         /* body bytes in flight, all requests; 0 = 8 MiB (at least max_body) */
	const char *const *origins; /* extra allowed Origin values, NULL-terminated */
	tg_mcp_options session;     /* budgets of --insecure-no-auth, hide_write_tools, version */
	/* called once listening, with the bound port (stderr lines are cli's) */
	void (*on_ready)(void *ctx, const char *url);
	void *ctx;
	/* called in each worker process right after its fork (NULL: none):
	 * what a process that runs sandboxes sets up for itself (the net
	 * namespace made ahead). The server process must start no thread
	 * before the workers are forked: a thread holding a lock at the fork
	 * leaves it held forever in the child (a worker deadlocked so).
	 * index: the worker's number, 0..workers-1 (a request goes to the
	 * free worker of lowest number). cli starts the worker's sandbox
	 * pool here (docs/SANDBOX.md, "The pool"). */
	void (*worker_init)(void *ctx, unsigned index);
	/* called in a worker when it ends normally (end of input from the
	 * server), before it exits (NULL: none): cli stops its pool */
	void (*worker_exit)(void *ctx);
} tg_mcp_http_options;

/* Serve until *stop becomes non-zero (a signal handler sets it). 0 on a clean
 * stop; TG_ERR_INVALID for a refused address, TG_ERR_UNAVAILABLE when the
 * library is missing or the port cannot be bound. */
int tg_mcp_http_serve(const tg_mcp_http_options *opt, volatile int *stop);
/* 1 if addr is a loopback address (127.0.0.0/8, ::1, "localhost"). */
int tg_mcp_addr_loopback(const char *addr);

#endif
