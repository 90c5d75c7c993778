/*
 * mcp/mhd_dl.h: libmicrohttpd, loaded on first use (as store/ loads
 * libgit2). Linked, it and GnuTLS would cost every `toolgate call` their
 * dynamic loading; only `toolgate serve --http` needs them. Every MHD_* name
 * http.c uses resolves through a table of pointers whose types come from
 * <microhttpd.h> itself.
 */
#ifndef TG_MCP_MHD_DL_H
#define TG_MCP_MHD_DL_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

#define TG_MHD_FUNCTIONS(X) \
	X(MHD_start_daemon) \
	X(MHD_stop_daemon) \
	X(MHD_create_response_from_buffer) \
	X(MHD_create_response_from_callback) \
	X(MHD_add_response_header) \
	X(MHD_queue_response) \
	X(MHD_destroy_response) \
	X(MHD_lookup_connection_value) \
	X(MHD_get_connection_info) \
	X(MHD_get_daemon_info) \
	/* end */

struct tg_mhd_api {
#define TG_MHD_MEMBER(f) __typeof__(f) *f;
	TG_MHD_FUNCTIONS(TG_MHD_MEMBER)
#undef TG_MHD_MEMBER
};

extern struct tg_mhd_api tg_mhd_api;

/* 0 once libmicrohttpd is loaded; TG_ERR_UNAVAILABLE saying what is missing. */
int tg_mhd_load(void);

#ifndef TG_MHD_DL_IMPL
#define MHD_start_daemon (tg_mhd_api.MHD_start_daemon)
#define MHD_stop_daemon (tg_mhd_api.MHD_stop_daemon)
#define MHD_create_response_from_buffer (tg_mhd_api.MHD_create_response_from_buffer)
#define MHD_create_response_from_callback (tg_mhd_api.MHD_create_response_from_callback)
#define MHD_add_response_header (tg_mhd_api.MHD_add_response_header)
#define MHD_queue_response (tg_mhd_api.MHD_queue_response)
#define MHD_destroy_response (tg_mhd_api.MHD_destroy_response)
#define MHD_lookup_connection_value (tg_mhd_api.MHD_lookup_connection_value)
#define MHD_get_connection_info (tg_mhd_api.MHD_get_connection_info)
#define MHD_get_daemon_info (tg_mhd_api.MHD_get_daemon_info)
#endif

#endif
