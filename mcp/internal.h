/*
 * mcp/internal.h: what the files of mcp/ share and cli/ never sees: the
 * session's state (struct tg_mcp_server) and the functions of each layer of
 * the session, lowest first in the order of the files:
 *  - era.c: the initialize-era versions and each era's shapes;
 *  - session.c: the output queue, replies and errors, the server log, the
 *    lines deferred while a request is in flight, the cancellation of the
 *    request in flight;
 *  - principal.c, paging.c, resources.c: the principal (tg_authorize), the
 *    history pages, the resources and their texts;
 *  - elicit.c, approve.c: asking a person (elicitation; the 2026-07-28
 *    input_required round trip);
 *  - program.c, listing.c: run_program and the session's hooks; tools/list
 *    and the meta-tools' catalogue;
 *  - tools.c: tools/call of the meta-tools and registered tools;
 *  - cancel.c: a tools/call with its input watched for cancellation (the
 *    handler is handed in);
 *  - modern.c: the 2026-07-28 era's requests;
 *  - batch.c: a JSON-RPC batch (2025-03-26), each element served by the
 *    single-message handler handed in;
 *  - server.c: the session's life, the initialize handshake, dispatch and
 *    the stdio loop.
 * The HTTP transport (http*.c, http_internal.h) sits beside server.c.
 */
#ifndef TG_MCP_INTERNAL_H
#define TG_MCP_INTERNAL_H

#include "mcp/mcp.h"

/* era.c: the initialize eras, oldest first (0: none negotiated). */
enum {
	TG_MCP_ERA_2024_11 = 1,
	TG_MCP_ERA_2025_03 = 2, /* the only era with JSON-RPC batches */
	TG_MCP_ERA_2025_06 = 3,
	TG_MCP_ERA_2025_11 = 4,
};
/* The initialize-era versions spoken, newest first, NULL-terminated. */
extern const char *const tg_mcp_era_versions[];
/* The era of an initialize-era version string, or 0. */
int tg_mcp_era(const char *version);
/* The version initialize answers: want when spoken, else the latest. */
const char *tg_mcp_era_negotiate(const char *want);
/* Cut a message of a session of era (its request's method, NULL for a
 * notification) to what that era's schema has; a no-op from 2025-06-18. */
void tg_mcp_era_shape(int era, const char *method, json_t *msg);

/* batch.c: a JSON-RPC batch (an array) in a session of the 2025-03-26 era:
 * each element goes through one (server.c's single-message handler), the
 * responses are queued as one array in order, the notifications queued
 * meanwhile before it; an empty, over-long or out-of-era batch is one
 * -32600 error. */
typedef int (*tg_mcp_msg_handler)(tg_mcp_server *s, const json_t *msg);
int tg_mcp_batch(tg_mcp_server *s, const json_t *batch, tg_mcp_msg_handler one);

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
/* tools/list (params already checked to be an object or NULL). */
int tg_mcp_tools_list(tg_mcp_server *s, const json_t *id, const json_t *params);
/* A request of the 2026-07-28 era (its params carry _meta with a protocol
 * version, or it is server/discover): served without a handshake (modern.c). */
int tg_mcp_modern_handle(tg_mcp_server *s, const json_t *id, const char *method,
			 const json_t *params);
/* 1 if the request's params carry a modern _meta protocol version. */
int tg_mcp_is_modern(const char *method, const json_t *params);
/* notifications/cancelled for an open subscriptions/listen: forget it. */
void tg_mcp_modern_cancel(tg_mcp_server *s, const json_t *params);
/* Queue notifications/tools/list_changed on every open toolsListChanged
 * subscription (stdio). */
int tg_mcp_modern_list_changed(tg_mcp_server *s);
/* 2026-07-28 (SEP-2549): set the cache hint of a cacheable result (a list,
 * resources/read): ttlMs 0 and cacheScope "private" (it depends on the
 * principal) or "public". No-op in the initialize eras. 0, or <0 on no
 * memory (result is then left to the caller). */
int tg_mcp_cache_hint(const tg_mcp_server *s, json_t *result, int private_scope);
/* The server/discover result (a new object, without resultType). */
json_t *tg_mcp_discover_result(const tg_mcp_server *s);
/* Write what is queued to the stdio loop's output now (s->io_out) and
 * clear the queue; for the call thread while a request is in flight. */
int tg_mcp_write_out(tg_mcp_server *s);
/* Queue a notification (steals msg). */
int tg_mcp_queue(tg_mcp_server *s, json_t *msg);
/* With a shared quota: count one more call (creates 0) or create (1) in it
 * and return its new total; else return the session's own counter. */
uint64_t tg_mcp_count(tg_mcp_server *s, int creates);
/* 1 if the session's principal may do act a on tool name (tg_authorize,
 * the registry's one decision); 0 with the reason in the error. */
int tg_mcp_tool_allowed(tg_mcp_server *s, tg_action a, const char *name);
/* The session's principal for tg_authorize, as its options say now. */
const tg_principal *tg_mcp_principal(tg_mcp_server *s);
/* The registered tools visible in this session: the backend's list without
 * names that clash with a meta-tool and, with hide_write_tools, without
 * workspace:write tools. *out is a new array sorted by name. */
int tg_mcp_visible_tools(tg_mcp_server *s, json_t **out);

/* resources.c: what the agent sees of the rules: the create_tool
 * description, the MCP resources (the SDK header, docs/SDK.md, the
 * effective policy), and the shapes of structured results. */
/* The create_tool description. */
extern const char tg_mcp_create_tool_text[];
/* In the meta-tools array: set create_tool's description to the text above
 * and add the output_schema property to its inputSchema. */
void tg_mcp_describe_create_tool(json_t *meta_tools);
/* A successful result as structuredContent: an object as is, any other
 * value wrapped as {"result": value} (a new reference; NULL on no memory). */
json_t *tg_mcp_structured(const json_t *result);
/* A tool's output_schema as MCP outputSchema (always type object): an
 * object schema as is, any other wrapped as the "result" property. */
json_t *tg_mcp_output_schema(const json_t *schema);
/* resources/list and resources/read (params already an object or NULL). */
int tg_mcp_resources_list(tg_mcp_server *s, const json_t *id, const json_t *params);
int tg_mcp_resources_read(tg_mcp_server *s, const json_t *id, const json_t *params);
/* Reply with a result the same for every principal: with a public cache
 * hint in the 2026-07-28 era (steals result). */
int tg_mcp_reply_public(tg_mcp_server *s, const json_t *id, json_t *result);
/* resources/templates/list: toolgate has no resource templates. */
int tg_mcp_resource_templates_list(tg_mcp_server *s, const json_t *id, const json_t *params);

/* prompts.c: prompts/list and prompts/get of the one prompt, write_tool
 * (params already an object or NULL). */
int tg_mcp_prompts_list(tg_mcp_server *s, const json_t *id, const json_t *params);
int tg_mcp_prompts_get(tg_mcp_server *s, const json_t *id, const json_t *params);

/* paging.c: one page of a history (registry JSON) for tool_history
 * (versions_only 0) or list_tool_versions (1), from cursor (NULL: the first
 * page); rejected versions summarised unless details. TG_ERR_INVALID names
 * a bad cursor. */
#define TG_MCP_HISTORY_PAGE 50
int tg_mcp_history_page(json_t **out, const json_t *history, const char *cursor, int details,
			int versions_only);

/* notify.c: logging and progress (docs/MCP.md, "Logging and progress").
 * logging/setLevel (params an object or NULL); a log line at level (an
 * RFC 5424 name) sent when the client's level lets it through; progress
 * for the tools/call in flight: begin reads params._meta.progressToken,
 * each step must grow (else it is not sent), end sends the last step and
 * forgets the token. tg_mcp_op_event is the hooks' event (ctx: the
 * session); tg_mcp_events_wanted says whether to hand it down at all. */
int tg_mcp_set_level(tg_mcp_server *s, const json_t *id, const json_t *params);
/* 1 + the index of a level name (debug = 1 .. emergency = 8): the value of
 * log_level that lets it through; 0 for anything else. */
int tg_mcp_log_level_of(const char *name);
void tg_mcp_log(tg_mcp_server *s, const char *level, const char *logger, const char *message);
void tg_mcp_progress_begin(tg_mcp_server *s, const json_t *params);
void tg_mcp_progress(tg_mcp_server *s, unsigned step, unsigned total, const char *message);
/* end: the last step goes before the answer queued since begin. */
void tg_mcp_progress_end(tg_mcp_server *s, const char *message);
void tg_mcp_op_event(void *ctx, const tg_op_event *ev);
int tg_mcp_events_wanted(const tg_mcp_server *s);

/* program.c: the run_program meta-tool (listed when the backend can run
 * programs) and the session's hooks into bridged calls. */
json_t *tg_mcp_program_tool(void);
int tg_mcp_call_program(tg_mcp_server *s, const json_t *id, const json_t *args);
void tg_mcp_session_hooks(tg_mcp_server *s, tg_call_hooks *h);
/* elicit.c: ask the session's client about one call (elicitation/create,
 * stdio, initialize era): the tg_call_hooks ask of docs/MCP.md. */
int tg_mcp_elicit_call(tg_mcp_server *s, const tg_call_question *q, const char **why);
/* The params of an elicitation/create about one call (a new object). */
json_t *tg_mcp_elicit_params(tg_mcp_server *s, const tg_call_question *q);
/* approve.c: who answers a call that needs a person (docs/MCP.md): the
 * tg_call_hooks ask of the session. A principal without may_approve is
 * never asked (TG_ERR_UNAVAILABLE: the queue); in the 2026-07-28 era the
 * question becomes an input_required result; else elicitation. */
int tg_mcp_may_approve(tg_mcp_server *s, const char *tool);
int tg_mcp_ask(void *ctx, const tg_call_question *q, const char **why);
/* Around a 2026-07-28 tools/call: begin checks and redeems a requestState
 * with its inputResponses (1: an error answer was queued, 0: go on); end
 * turns the answer queued since mark into input_required when a call
 * asked for a person. */
int tg_mcp_mrtr_begin(tg_mcp_server *s, const json_t *id, const char *name, const json_t *args,
		      const json_t *params);
int tg_mcp_mrtr_end(tg_mcp_server *s, const json_t *id, size_t mark, int r);
/* state.c: a refused requestState or inputResponses: -32602 with the
 * reason, audited "mcp_state_refused" (1: the answer is queued, or < 0);
 * the principal a state is sealed to; an audit entry of the session
 * (details taken; a failure is logged, never the request's). */
void tg_mcp_audit(tg_mcp_server *s, const char *event, const char *tool, json_t *details);
int tg_mcp_state_refuse(tg_mcp_server *s, const json_t *id, const char *tool, const char *why);
const char *tg_mcp_state_principal(const tg_mcp_server *s);
/* Redeem a requestState sealed to this session's principal: 0 with its
 * payload (the caller's), else answered (1: refused -32602 and audited, or
 * -32603) or < 0 when the answer could not be written. */
int tg_mcp_state_redeem(tg_mcp_server *s, const json_t *id, const char *tool, const char *state,
			json_t **payload);
/* tool_input.c: a tool asking its client for input (docs/MCP.md).
 * begin redeems the state of a retry whose answers are not a call approval
 * (1: an error answer was queued, 0: go on with s->tool_input set); args
 * gives the run's arguments with the answers and the sealed version
 * (*run_args NULL when there are none); version is -1 with why when the
 * registry refused the run because another version is active; ask answers a result with $input_required: 1 replied
 * (input_required), 0 the call's error result is why, < 0 an error; clear
 * forgets the request's. */
int tg_mcp_tool_input_begin(tg_mcp_server *s, const json_t *id, const char *name,
			    const char *state, const json_t *responses);
int tg_mcp_tool_input_args(tg_mcp_server *s, const json_t *args, json_t **run_args);
int tg_mcp_tool_input_version(tg_mcp_server *s, const json_t *res, char *why, size_t n);
int tg_mcp_tool_input_ask(tg_mcp_server *s, const json_t *id, const char *name,
			  const json_t *res, char *why, size_t n);
void tg_mcp_tool_input_clear(tg_mcp_server *s);
/* The next line received while an elicitation waited (a request that must
 * be served after the current one), or 0 when none; *line is the caller's
 * to free. */
int tg_mcp_deferred_pop(tg_mcp_server *s, char **line, size_t *len);
/* Keep a line received while the session's request was in flight. */
int tg_mcp_deferred_push(tg_mcp_server *s, const char *line, size_t len);

/* cancel.c: notifications/cancelled for the request in flight (stdio).
 * tools/call with a watcher of the input that fires the registry's
 * cancellation when the client cancels this request; other lines are
 * deferred. */
typedef int (*tg_mcp_handler)(tg_mcp_server *s, const json_t *id, const json_t *params);
/* call is the request's handler (tools.c's tg_mcp_tools_call), handed in
 * by the dispatcher so that this file calls nothing above it. */
int tg_mcp_call_cancellable(tg_mcp_server *s, const json_t *id, const json_t *params,
			    tg_mcp_handler call);
/* msg cancels the request in flight: fire it (1), else 0. */
int tg_mcp_cancel_line(tg_mcp_server *s, const json_t *msg);
/* 1: the response to id is not sent (its request was cancelled). */
int tg_mcp_reply_dropped(tg_mcp_server *s, const json_t *id);
/* A deferred line that stands for an over-long line read meanwhile: its
 * marker, served as the line's error. */
#define TG_MCP_OVERSIZE_MARK "\0oversize"
#define TG_MCP_OVERSIZE_LEN 9
int tg_mcp_deferred_is_oversize(const char *line, size_t len);

/* refusals.c: refused requests audited once per kind and minute, the rest
 * counted into one "mcp_refusals" entry; a session that keeps being
 * refused after a budget was spent is ended. */
#define TG_MCP_REFUSED_END TG_MCP_SESSION_REFUSED_END
#define TG_MCP_REFUSAL_KINDS 16 /* kinds told apart by tool and details */
#define TG_MCP_REFUSAL_EVENTS 4 /* then one per event */
struct tg_mcp_refusal_kind {
	char event[32];
	char tool[65];
	char digest[65];         /* of event, tool and details */
	int catch_all;           /* the event's slot past the first kinds */
	uint64_t window_ms;      /* monotonic start of its minute */
	uint64_t window_wall_ms; /* the same, as wall time for the entry */
	uint64_t suppressed;     /* refused in that minute, not yet audited */
};
/* 1: this refusal (its event, tool and details) is counted, not audited;
 * 0: audit it. */
int tg_mcp_refusal_counted(tg_mcp_server *s, const char *event, const char *tool,
			   const json_t *details);
/* The counts not yet audited, written (at the session's end). */
void tg_mcp_refusals_flush(tg_mcp_server *s);

/* Session state visible to tools.c. */
struct tg_mcp_server {
	tg_mcp_backend be;
	tg_mcp_options opt;
	tg_principal principal;  /* opt's principal, for tg_authorize (tg_mcp_principal) */
	char session[65];
	tg_actor actor;
	int initialized;         /* initialize answered */
	int client_ready;        /* notifications/initialized received */
	char protocol[16];
	int era;                 /* the negotiated initialize era (era.c), 0 before */
	const char *req_method;  /* the method of the request being answered (borrowed) */
	char client_name[129];
	char client_version[65];
	uint64_t calls, creates, denied;
	uint64_t generation;
	int have_generation;
	int generation_failed;   /* logged once */
	int toolset_dirty;       /* a request may have changed the toolset */
	int forbidden;           /* the last request asked for a tool the principal may not use */
	int modern;              /* the request being handled is of the 2026-07-28 era */
	int bad_meta;            /* that request's _meta lacked or garbled its version or
				  * client capabilities (-32602; HTTP 400) */
	int modern_started;      /* a modern request was served (audited once) */
	const json_t *client_caps; /* the modern request's clientCapabilities (borrowed) */
	json_t *subs;            /* ids of open subscriptions/listen (stdio) */
	char actor_session[200]; /* "principal:session" when a principal is set */
	tg_buf out;
	/* elicitation (initialize era, stdio): the client declared form mode,
	 * and the serving loop's reader and descriptors while it runs */
	int elicitation;
	tg_mcp_reader *io_rd;
	int io_in, io_out;
	unsigned elicit_seq;
	struct tg_mcp_deferred *deferred; /* lines received while asking */
	size_t ndeferred, deferred_cap;
	/* elicitation over a transport without a reader (HTTP): send one
	 * request to the client and wait for its response: 1 and *resp, 0 no
	 * answer in time, TG_ERR_UNAVAILABLE the client cannot be reached */
	int (*exchange)(void *ctx, json_t *req, json_t **resp, uint64_t timeout_ms);
	void *exchange_ctx;
	/* 2026-07-28 per-call approvals (approve.c), for the request at hand */
	char request_sha256[65]; /* of its tool name and canonical arguments */
	json_t *grants;          /* answers the redeemed requestState carries */
	json_t *question;        /* the call that asked for a person, or NULL */
	json_t *replay;          /* the journal the redeemed state carried, or NULL */
	json_t *journal;         /* this run's journal (tg_call_hooks.journaled) */
	unsigned round;          /* input_required rounds of this request so far */
	json_t *tool_input;      /* a tool's redeemed input request (tool_input.c) */
	/* cancel.c: the request in flight and its cancellation; io_mu guards
	 * io_rd and the deferred lines while a call runs */
	pthread_mutex_t io_mu;
	tg_cancel *cancel;
	const json_t *inflight_id;
	uint64_t cancelled;      /* requests cancelled in this session */
	/* notify.c: the client's log level (0 none set, else 1 + index of
	 * debug..emergency) and the progress of the tools/call in flight */
	int log_level;
	const json_t *progress_token; /* borrowed from the request's params, or NULL */
	int progress_sent;
	unsigned progress_last, progress_total;
	size_t progress_mark;    /* the queue's length at begin (0 once written) */
	/* over HTTP, while a request's answer is a live SSE stream
	 * (http_live.c): takes each notification as soon as it is queued
	 * (the queue's lines are moved out); NULL otherwise */
	void (*live)(void *ctx, tg_buf *out);
	void *live_ctx;
	/* refusals.c */
	struct tg_mcp_refusal_kind refusals[TG_MCP_REFUSAL_KINDS + TG_MCP_REFUSAL_EVENTS];
	int spent;               /* a budget of this session was spent */
	uint64_t refused_after_spent;
	int ended;               /* refused too often after that: end the session */
};

#endif
