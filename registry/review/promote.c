/*
 * registry/review/promote.c: `toolgate promote NAME@V`, a person's decision
 * to activate a version that shadow runs held out of the active slot
 * (status "held", create/shadow.c). Only a held version is promoted; its
 * approval must stand like any activation's (reg_activate checks it), and
 * the activation is audited "promote" with the shadow report's counts.
 * tg_registry_behaviour reads a version's stored shadow report for `toolgate
 * diff NAME A B --behaviour` (record/samples.c keeps the rows).
 */
#include "registry/review/review.h"

#include <string.h>

int tg_registry_promote(json_t **out, tg_registry *r, const char *name, unsigned v,
			const tg_actor *who)
{
	_cleanup_free_ char *status = NULL;
	int64_t id;
	unsigned cur = 0;
	int rc;

	*out = NULL;
	if (v == 0)
		return tg_error_set(TG_ERR_INVALID, "promote needs NAME@V");
	if ((rc = reg_need_tool(r, name, &id)) < 0)
		return rc;
	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = reg_active_version(r, id, &cur)) < 0 ||
	    (rc = reg_version_status(r, id, v, &status)) < 0)
		goto fail;
	if (!status[0]) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", name, v);
		goto fail;
	}
	if (strcmp(status, "held") != 0) {
		rc = tg_error_set(TG_ERR_INVALID, "%s v%u is %s, not held: only a version that "
						  "shadow runs held is promoted (rollback --to "
						  "activates an inactive one)", name, v, status);
		goto fail;
	}
	if ((rc = reg_activate(r, id, name, v, "promote", who)) < 0 ||
	    (rc = reg_decision_sign(r, name, v, "promote")) < 0)
		goto fail;
	if ((rc = reg_commit(r)) < 0)
		return rc;
	*out = json_pack("{s:s, s:i, s:i, s:s}", "name", name, "version", (int)v, "from_version",
			 (int)cur, "status", "active");
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
fail:
	reg_rollback(r);
	return rc;
}

int tg_registry_behaviour(json_t **out, tg_registry *r, const char *name, unsigned a,
			  unsigned b)
{
	_cleanup_json_ json_t *rep = NULL;
	_cleanup_free_ char *sa = NULL, *sb = NULL;
	json_int_t against;
	int64_t id;
	int rc;

	*out = NULL;
	if ((rc = reg_need_tool(r, name, &id)) < 0 ||
	    (rc = reg_version_status(r, id, a, &sa)) < 0 ||
	    (rc = reg_version_status(r, id, b, &sb)) < 0)
		return rc;
	if (!sa[0] || !sb[0])
		return tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", name, sa[0] ? b : a);
	if ((rc = reg_shadow_report(&rep, r, name, b)) < 0)
		return rc;
	if (!rep)
		return tg_error_set(TG_ERR_NOTFOUND, "%s v%u has no shadow report (no version was "
						     "active when it was created, promotion was "
						     "\"tests\", or it failed before)", name, b);
	against = json_integer_value(json_object_get(rep, "against_version"));
	if (against != (json_int_t)a)
		return tg_error_set(TG_ERR_NOTFOUND, "%s v%u was shadow-run against v%lld, not "
						     "v%u: toolgate diff %s %lld %u --behaviour",
				    name, b, (long long)against, a, name, (long long)against, b);
	*out = json_pack("{s:s, s:i, s:i, s:s, s:O}", "name", name, "from", (int)a, "to", (int)b,
			 "status", sb, "report", rep);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}
