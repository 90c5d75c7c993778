/*
 * registry/authz/authz.c: the one decision (docs/THREAT_MODEL.md, "One
 * decision") as a run asks it. tg_authorize (principal.c) answers for the
 * principal; reg_authorize_call adds what a run knows: a one-off program's
 * callees hold no capability (nobody reviewed the caller), and code that
 * runs under a test's or a re-test's authority never reaches a callee that
 * holds one (it gets the test's fixture instead). reg_charge_attempt
 * charges each bridged attempt to the session's budget and, in a pull's
 * re-tests, to the pull's own.
 */
#include "registry/authz/authz.h"

#include <string.h>

int reg_authorize_call(tg_registry *r, const char *name, unsigned v, const json_t *caps,
		       unsigned depth, int oneoff_caller, int *hidden)
{
	const tg_principal *p = r->hooks ? r->hooks->principal : NULL;
	int rc = tg_authorize(p, TG_ACTION_CALL, name, caps, hidden);

	(void)depth; /* the same rules hold at every depth */
	if (rc < 0)
		return rc;
	if (oneoff_caller && json_array_size(caps) > 0)
		/* docs/BRIDGE.md, one-off programs: nobody reviewed the caller */
		return tg_error_set(TG_ERR_DENIED, "%s v%u holds capabilities a person approved; "
						   "a one-off program may call only tools that hold "
						   "none", name, v);
	if (r->authority != TG_AUTHORITY_REAL && json_array_size(caps) > 0)
		return REG_RUN_FIXTURE;
	return REG_RUN_REAL;
}

int reg_authorize_name(tg_registry *r, const char *name)
{
	return tg_authorize(r->hooks ? r->hooks->principal : NULL, TG_ACTION_CALL, name, NULL, NULL);
}

int reg_charge_attempt(tg_registry *r, const char *caller, const char *callee, char *why,
		       size_t whylen)
{
	if (r->authority == TG_AUTHORITY_RETEST &&
	    ++r->retest_attempts > r->cfg.pull_test_max_tool_calls) {
		snprintf(why, whylen, "the re-tests of this pull may make %u bridged calls in all "
				      "(pull_test_max_tool_calls); the call to %.80s is refused",
			 r->cfg.pull_test_max_tool_calls, callee);
		return 0;
	}
	if (r->hooks && r->hooks->attempt)
		return r->hooks->attempt(r->hooks->ctx, caller, callee, why, whylen);
	return 1;
}

tg_authority reg_authority_set(tg_registry *r, tg_authority a, int reset)
{
	tg_authority old = r->authority;

	r->authority = a;
	if (reset)
		r->retest_attempts = 0;
	return old;
}
