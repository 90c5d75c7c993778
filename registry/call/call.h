/*
 * registry/call/call.h: calls, above create/: a call of a registered tool
 * (call.c) and one-off programs (run.c).
 */
#ifndef TG_REG_CALL_H
#define TG_REG_CALL_H

#include "registry/create/create.h"

/* call.c: */
/* tg_registry_call with the calling run's bridge (NULL: from the agent)
 * and the caller's own audit entry (tg_registry_call_logged; NULL: none). */
int reg_call_ex(json_t **out, tg_registry *r, const char *name, const json_t *args,
		const tg_actor *who, const reg_bridge *parent, const char *after);

#endif
