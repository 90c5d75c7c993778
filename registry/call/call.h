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

/* canary.c: after a recorded real call that failed, re-activate the
 * previous version when the newly active one failed 3 of its first 20
 * recorded calls and the previous one none of its own (audited
 * "auto_revert"). */
int reg_canary_after_call(tg_registry *r, const char *name, const json_t *res,
			  const tg_actor *who);

#endif
