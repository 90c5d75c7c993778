/*
 * registry/create/refusal.c: every problem of a submission in one round
 * (papercut 5 of issue 29). When tg_manifest_validate refuses a manifest
 * (its problems already all in one message, manifest.c), the analyzer still
 * vets the source, with the workspace capabilities the manifest asks for,
 * and its error findings join the refusal:
 *   "<the manifest's problems>; the analyzer also found 2 errors in the
 *    source: [process] 7:12 system is not allowed (process); ..."
 * Where the source cannot be analyzed, the refusal says so instead: the
 * source has a problem of its own (empty, too large, NUL bytes), there is no
 * SDK, or the create rate limit is reached (a refused manifest records no
 * create, so the rate check, read-only here, bounds these analyses too).
 * Nothing is built, stored or audited. Calls reg_check_source (manifest.c),
 * reg_rate_before_create (quota.c), reg_policy and tg_analyze.
 */
#include "registry/create/create.h"

#include <string.h>

#define REFUSAL_MANIFEST_CAP 560 /* bytes of the manifest's part kept */
#define REFUSAL_FINDING_CAP 200  /* bytes of one finding */
#define REFUSAL_FINDINGS 6       /* findings listed */

/* Why the source is not analyzed, or NULL when it can be (then *pol set). */
static const char *not_analyzable(tg_registry *r, const tg_actor *who, const tg_submission *sub,
				  const tg_policy **pol)
{
	if (!sub->source || reg_check_source(sub->source, sub->source_len) < 0) {
		tg_error_clear();
		return "the source was not analyzed: it has a problem of its own";
	}
	if (reg_need_sdk(r) < 0 || reg_policy(r, pol) < 0) {
		tg_error_clear();
		return "the source was not analyzed: the SDK or the policy is missing";
	}
	if (reg_rate_before_create(r, who) < 0) {
		tg_error_clear();
		return "the source was not analyzed: the create rate limit is reached";
	}
	return NULL;
}

/* The analyzer's error findings as text in buf ("" when it passes). */
static int analyzer_part(char *buf, size_t size, tg_registry *r, const tg_submission *sub,
			 const tg_policy *pol)
{
	const json_t *capj = json_object_get(sub->manifest, "capabilities");
	const char *caps[2];
	tg_analyze_opts ao = { 0 };
	tg_report *rep = NULL;
	size_t i, n = 0, nerr = 0, len;
	int rc;

	/* only the workspace capabilities widen the analysis */
	for (i = 0; i < json_array_size(capj) && n < 2; i++) {
		const char *c = json_string_value(json_array_get(capj, i));
		if (c && (!strcmp(c, "workspace:read") || !strcmp(c, "workspace:write")))
			caps[n++] = c;
	}
	ao.capabilities = caps;
	ao.ncapabilities = n;
	ao.sdk_include_dir = r->sdk_include;
	ao.timeout_ms = r->cfg.analyze_timeout_ms;
	buf[0] = '\0';
	rc = tg_analyze(&rep, pol, "tool.c", sub->source, sub->source_len, &ao);
	if (rc < 0) {
		snprintf(buf, size, "the source was not analyzed: %.300s", tg_error_last()->message);
		tg_error_clear();
		return 0;
	}
	for (i = 0; i < rep->nfindings; i++)
		nerr += rep->findings[i].severity == TG_SEV_ERROR;
	if (nerr)
		snprintf(buf, size, "the analyzer also found %zu error%s in the source:", nerr,
			 nerr == 1 ? "" : "s");
	for (i = 0, n = 0; i < rep->nfindings && nerr; i++) {
		const tg_finding *f = &rep->findings[i];
		if (f->severity != TG_SEV_ERROR)
			continue;
		len = strlen(buf);
		if (n++ == REFUSAL_FINDINGS) {
			snprintf(buf + len, size - len, "; ... (%zu more)", nerr - REFUSAL_FINDINGS);
			break;
		}
		snprintf(buf + len, size - len, "%s [%s] %u:%u %.*s", n > 1 ? ";" : "", f->rule,
			 f->line, f->column, REFUSAL_FINDING_CAP, f->message);
	}
	tg_report_free(rep);
	return 0;
}

int reg_manifest_refusal(tg_registry *r, const tg_actor *who, const tg_submission *sub, int rc)
{
	char manifest[1024], more[1024];
	const tg_policy *pol = NULL;
	const char *why;

	if (rc != TG_ERR_INVALID && rc != TG_ERR_LIMIT)
		return rc; /* not a problem of the submission */
	snprintf(manifest, sizeof(manifest), "%s", tg_error_last()->message);
	tg_error_clear();
	if (!json_is_object(sub->manifest))
		why = "the source was not analyzed: the manifest is not a JSON object";
	else
		why = not_analyzable(r, who, sub, &pol);
	if (why)
		snprintf(more, sizeof(more), "%s", why);
	else
		analyzer_part(more, sizeof(more), r, sub, pol);
	if (!more[0])
		return tg_error_set(rc, "%s", manifest);
	/* the manifest's part is cut so the analyzer's shows within 1 KiB */
	return tg_error_set(rc, "%.*s%s; %s", REFUSAL_MANIFEST_CAP, manifest,
			    strlen(manifest) > REFUSAL_MANIFEST_CAP ? "..." : "", more);
}
