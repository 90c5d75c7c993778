/*
 * registry/authz/authz.h: who may run, create or change what, with which
 * authority, charged to which budget: the one decision, above record/ and
 * below exec/, so that the bridge (at any depth), the call path, the
 * create pipeline's tests and a pull's re-tests all ask it. tg_authorize
 * (registry.h) is its principal-level part, which the MCP layer also asks
 * for the meta-tools' targets and for tools/list; reg_authorize_call adds
 * what only a run knows: the callee's capabilities, the caller, the depth
 * and the handle's authority (a real call, a test, a pull's re-test).
 */
#ifndef TG_REG_AUTHZ_H
#define TG_REG_AUTHZ_H

#include "registry/record/record.h"

/* What a call of a registered tool may do. */
enum {
	REG_RUN_REAL = 0,    /* run it for real */
	REG_RUN_FIXTURE = 1, /* a test's callee holding capabilities: answer it
			      * from the test's tool_results, never run it */
};

/* The call of tool name, version v with capabilities caps, depth calls
 * deep (0: asked by the agent), from a one-off program's run when
 * oneoff_caller: REG_RUN_REAL or REG_RUN_FIXTURE; TG_ERR_DENIED (the
 * reason in the error) when it may not run; *hidden as tg_authorize's. */
int reg_authorize_call(tg_registry *r, const char *name, unsigned v, const json_t *caps,
		       unsigned depth, int oneoff_caller, int *hidden);

/* Whether the principal of the handle's operation may use the name at
 * all, asked before the tool is looked up so that a refused name gets the
 * same answer whether or not such a tool exists: 0, or TG_ERR_DENIED with
 * the reason in the error. The capabilities (hidden write tools) are
 * reg_authorize_call's. */
int reg_authorize_name(tg_registry *r, const char *name);

/* Charge one bridged call attempt of caller to callee to the budgets of
 * the handle's operation: the MCP session's (its attempt hook) and, in a
 * pull's re-tests, the pull's (pull_test_max_tool_calls). 1 charged, 0
 * refused with the reason in why. Every attempt counts, whatever follows. */
int reg_charge_attempt(tg_registry *r, const char *caller, const char *callee, char *why,
		       size_t whylen);

/* The handle's authority for what it runs next (the pipeline sets TEST
 * around a submission's tests, pull RETEST around a re-test); returns the
 * previous one, which the caller puts back. A new RETEST authority starts
 * the pull's budget at 0 when reset is set. */
tg_authority reg_authority_set(tg_registry *r, tg_authority a, int reset);

#endif
