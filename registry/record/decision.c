/*
 * registry/record/decision.c: a person's decision, signed, in the review
 * notes push carries (docs/STORE.md, "Signed decisions"). When this host
 * has a signing key, an approval, denial, removal or promotion also queues
 * one line for the version commit's review note (review_note.c, written
 * after COMMIT):
 *
 *   signed decision: toolgate-decision/1 approve NAME v3 content_hash=HEX
 *     capabilities=["workspace:read"] signer=SHA256:... at=EPOCH | SIG
 *
 * (one line). The bytes between "signed decision: " and " | " are signed by
 * `ssh-keygen -Y sign -n toolgate-decision` with the host's key (store/sign.c,
 * the commit signer with a namespace of its own), SIG is the armored
 * signature's base64 body. What it binds is read from the versions row,
 * never from the caller. reg_decision_parse takes a line apart for a pull
 * (registry/replica/decisions.c checks the signature and the binding), and
 * reg_claims_json lists the entries a pull did not follow, for show.
 */
#include "registry/record/record.h"

#include <string.h>

#define ARMOR_BEGIN "-----BEGIN SSH SIGNATURE-----"
#define ARMOR_END "-----END SSH SIGNATURE-----"

static int pub_path(tg_registry *r, char **out)
{
	_cleanup_free_ char *key = reg_key_path(r);

	*out = NULL;
	if (!key || asprintf(out, "%s.pub", key) < 0) {
		*out = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* The armored signature's body, joined into one line. */
static int armor_body(char *out, size_t size, const char *armored)
{
	const char *p = strstr(armored, ARMOR_BEGIN), *end = strstr(armored, ARMOR_END);
	size_t n = 0;

	if (!p || !end || end < p)
		return tg_error_set(TG_ERR_IO, "signing: not an armored SSH signature");
	for (p += strlen(ARMOR_BEGIN); p < end; p++) {
		if (*p == '\n' || *p == '\r')
			continue;
		if (n + 1 >= size)
			return tg_error_set(TG_ERR_LIMIT, "signing: signature too long");
		out[n++] = *p;
	}
	out[n] = '\0';
	return 0;
}

int reg_decision_sign(tg_registry *r, const char *tool, unsigned v, const char *decision)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *pub = NULL, *sig = NULL, *payload = NULL, *line = NULL;
	char fp[128], body[1200];
	const char *commit, *caps, *hash;
	tg_store *s;
	int rc;

	if (r->following || reg_store(r, &s) < 0) {
		tg_error_clear();
		return 0;
	}
	if ((rc = pub_path(r, &pub)) < 0)
		return rc;
	if (access(pub, R_OK) != 0)
		return 0; /* no key: nothing is signed, as for commits */
	if ((rc = reg_version_binding(&st, r, tool, v, &commit, &caps, &hash)) < 0)
		return rc;
	if (!commit || strlen(commit) != 40 || !hash || strlen(caps ? caps : "") > 600)
		return 0;
	if ((rc = tg_store_key_fingerprint(fp, sizeof(fp), pub)) < 0)
		return tg_error_prefix("signed decision");
	if (asprintf(&payload, "toolgate-decision/1 %s %s v%u content_hash=%s capabilities=%s signer=%s at=%lld",
		     decision, tool, v, hash, caps ? caps : "[]", fp, (long long)tg_time_now()) < 0) {
		payload = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	reg_line_clean(payload);
	if ((rc = tg_store_sign_data(&sig, s, REG_DECISION_NS, payload, strlen(payload))) < 0 ||
	    (rc = armor_body(body, sizeof(body), sig)) < 0)
		return tg_error_prefix("signed decision");
	if (asprintf(&line, "%s%s | %s", TG_STORE_DECISION_PREFIX, payload, body) < 0) {
		line = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return reg_review_line(r, commit, line);
}

/* "KEY=VALUE" at *p (VALUE up to the next space, or to " signer=" for the
 * capabilities, which are JSON): copied into out, *p moved past it. */
static int field(char *out, size_t size, const char **p, const char *key, const char *stop)
{
	size_t kl = strlen(key), n;
	const char *e;

	if (strncmp(*p, key, kl) != 0 || (*p)[kl] != '=')
		return -1;
	*p += kl + 1;
	e = stop ? strstr(*p, stop) : *p + strcspn(*p, " ");
	if (!e)
		return -1;
	n = (size_t)(e - *p);
	if (n == 0 || n >= size)
		return -1;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p = e;
	if (**p == ' ')
		(*p)++;
	return 0;
}

static int malformed(void)
{
	return tg_error_set(TG_ERR_INVALID, "not a signed decision (malformed entry)");
}

int reg_decision_parse(reg_decision *out, const char *line)
{
	const size_t lp = strlen(TG_STORE_DECISION_PREFIX);
	const char *bar, *p, *b;
	char at[24], ver[16], *end = NULL;
	size_t n, i, o;
	long long t;

	memset(out, 0, sizeof(*out));
	if (strncmp(line, TG_STORE_DECISION_PREFIX, lp) != 0 || !(bar = strrchr(line, '|')) ||
	    bar < line + lp + 2 || bar[-1] != ' ' || bar[1] != ' ')
		return malformed();
	n = (size_t)(bar - 1 - (line + lp));
	if (n >= sizeof(out->payload))
		return malformed();
	memcpy(out->payload, line + lp, n);
	out->payload[n] = '\0';
	p = out->payload;
	if (strncmp(p, "toolgate-decision/1 ", 20) != 0)
		return malformed();
	p += 20;
	if (sscanf(p, "%15s %64s %15s", out->decision, out->tool, ver) != 3 || ver[0] != 'v')
		return malformed();
	if (strcmp(out->decision, "approve") && strcmp(out->decision, "deny") &&
	    strcmp(out->decision, "remove") && strcmp(out->decision, "promote"))
		return malformed();
	out->version = (unsigned)strtoul(ver + 1, &end, 10);
	if (!end || *end || !out->version || !tg_name_valid(out->tool))
		return malformed();
	for (i = 0; i < 3; i++)
		p += strcspn(p, " ") + 1;
	if (field(out->content_hash, sizeof(out->content_hash), &p, "content_hash", NULL) < 0 ||
	    strlen(out->content_hash) != 64 ||
	    field(out->caps, sizeof(out->caps), &p, "capabilities", " signer=") < 0 ||
	    field(out->signer, sizeof(out->signer), &p, "signer", NULL) < 0 ||
	    field(at, sizeof(at), &p, "at", NULL) < 0 || *p)
		return malformed();
	t = strtoll(at, &end, 10);
	if (!end || *end || t <= 0)
		return malformed();
	out->at = t;
	/* the armored signature, 70 columns as ssh-keygen writes it */
	b = bar + 2;
	n = strlen(b);
	if (n < 16 || n > 1200 || strspn(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != n)
		return malformed();
	o = (size_t)snprintf(out->sig, sizeof(out->sig), "%s\n", ARMOR_BEGIN);
	for (i = 0; i < n; i += 70)
		o += (size_t)snprintf(out->sig + o, sizeof(out->sig) - o, "%.70s\n", b + i);
	snprintf(out->sig + o, sizeof(out->sig) - o, "%s", ARMOR_END);
	return 0;
}

int reg_claims_json(json_t **out, tg_registry *r, const char *tool, unsigned v)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_json_ json_t *list = json_array();
	int rc;

	*out = NULL;
	if (!list)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_prepare(r, &st, "SELECT decision, signer, principal, signed_at, state, why FROM "
				 "remote_decisions WHERE tool = ?1 AND version = ?2 AND state IN "
				 "('claim', 'refused') ORDER BY seen_at, entry");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, tool);
	sqlite3_bind_int64(st, 2, v);
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		json_t *row = json_pack("{s:s, s:s, s:s, s:I, s:s, s:s}", "decision",
					(const char *)sqlite3_column_text(st, 0), "signer",
					(const char *)sqlite3_column_text(st, 1), "principal",
					(const char *)sqlite3_column_text(st, 2), "signed_at",
					(json_int_t)sqlite3_column_int64(st, 3), "state",
					(const char *)sqlite3_column_text(st, 4), "why",
					(const char *)sqlite3_column_text(st, 5));
		if (!row || json_array_append_new(list, row) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read remote decisions");
	*out = TG_TAKE_PTR(list);
	return 0;
}
