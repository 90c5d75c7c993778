/*
 * registry/record/approvers.c: the keys whose signed decisions this host
 * follows on pull (docs/STORE.md, "Signed decisions"), kept apart from the
 * trusted signers (whose signature spares re-running tests, keys.c): a key
 * may be trusted for one and not the other. <home>/trusted_approvers is in
 * ssh-keygen's allowed-signers format, each line limited to the decision
 * namespace (PRINCIPAL namespaces="toolgate-decision" KEYTYPE KEY), so a
 * commit signature can never pass for a decision. `toolgate key
 * trust-approver` appends a line (and forgets an earlier revocation of that
 * key); `key revoke-approver PRINCIPAL` removes the principal's lines and
 * records each key's revocation time in approver_revocations (registry.db):
 * from the next pull on, its decisions are no longer followed, and one
 * signed after that time is refused. Both are audited. Fingerprints are
 * computed here as ssh-keygen prints them (SHA256 of the key blob, base64
 * without padding).
 */
#include "registry/record/record.h"

#include <string.h>

#define APPROVERS_FILE "trusted_approvers"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *reg_trusted_approvers_path(const tg_registry *r)
{
	return tg_path_join(r->home, APPROVERS_FILE);
}

int reg_key_fingerprint(char *out, size_t size, const char *part)
{
	const char *p = strchr(part, ' ');
	unsigned char blob[8192], dig[32];
	unsigned acc = 0;
	size_t n = 0, i, o;
	int bits = 0;
	tg_sha256 h;

	if (!p)
		return tg_error_set(TG_ERR_INVALID, "not an SSH public key");
	for (p++; *p && *p != '=' && *p != ' '; p++) {
		const char *c = strchr(b64, *p);
		if (!c || n >= sizeof(blob))
			return tg_error_set(TG_ERR_INVALID, "not an SSH public key");
		acc = (acc << 6) | (unsigned)(c - b64);
		if ((bits += 6) >= 8) {
			bits -= 8;
			blob[n++] = (unsigned char)(acc >> bits);
		}
	}
	tg_sha256_init(&h);
	tg_sha256_update(&h, blob, n);
	tg_sha256_final(&h, dig);
	o = (size_t)snprintf(out, size, "SHA256:");
	for (i = 0; i < 32 && o + 5 < size; i += 3) {
		unsigned v = (unsigned)dig[i] << 16 | (i + 1 < 32 ? (unsigned)dig[i + 1] << 8 : 0) |
			     (i + 2 < 32 ? dig[i + 2] : 0);
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		if (i + 1 < 32)
			out[o++] = b64[v >> 6 & 63];
		if (i + 2 < 32)
			out[o++] = b64[v & 63];
	}
	out[o] = '\0';
	return 0;
}

int reg_approver_revoked_at(tg_registry *r, const char *key, int64_t *at)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	*at = 0;
	if ((rc = reg_prepare(r, &st, "SELECT at FROM approver_revocations WHERE key = ?1")) < 0)
		return rc;
	reg_bind_text(st, 1, key);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		*at = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "read approver revocations");
	return 0;
}

/* Run one statement with text parameters ?1.. (NULL ends them) and the
 * time as the last one when with_time. */
static int exec_text(tg_registry *r, const char *sql, const char *a, const char *b, int with_time)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc, k = 1;

	if ((rc = reg_prepare(r, &st, sql)) < 0)
		return rc;
	if (a)
		reg_bind_text(st, k++, a);
	if (b)
		reg_bind_text(st, k++, b);
	if (with_time)
		sqlite3_bind_int64(st, k, tg_time_now());
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "approver revocations");
}

int tg_registry_key_trust_approver(json_t **out, tg_registry *r, const char *principal,
				   const char *pubkey_file, const tg_actor *who)
{
	_cleanup_free_ char *path = reg_trusted_approvers_path(r);
	char part[8192], fp[128];
	int rc;

	*out = NULL;
	if (!path)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_trust_append(part, sizeof(part), path, principal, REG_DECISION_NS, pubkey_file)) < 0)
		return rc;
	if ((rc = reg_key_fingerprint(fp, sizeof(fp), part)) < 0)
		return tg_error_prefix("%s", pubkey_file);
	if ((rc = exec_text(r, "DELETE FROM approver_revocations WHERE key = ?1", fp, NULL, 0)) < 0)
		return rc;
	*out = json_pack("{s:s, s:s, s:s, s:s}", "principal", principal, "public_key", part, "key", fp,
			 "trusted_approvers", path);
	if (!*out)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return reg_audit_one(r, who, "key_trust_approver",
			     json_pack("{s:s, s:s, s:s}", "principal", principal, "public_key", part,
				       "key", fp));
}

/* Split text into the lines kept and the keys of the lines of principal. */
static int drop_principal(char **kept, json_t *keys, const char *text, const char *principal)
{
	size_t pl = strlen(principal), n = 0, cap = strlen(text) + 1;
	const char *p, *nl;

	if (!(*kept = malloc(cap)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (p = text; *p; p = nl) {
		nl = p + strcspn(p, "\n");
		if (*nl)
			nl++;
		if (!strncmp(p, principal, pl) && p[pl] == ' ') {
			/* "PRINCIPAL namespaces=\"...\" KEYTYPE KEY": the last two words */
			char line[8400], part[8192], fp[128];
			const char *k;
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
			k = strstr(line, "\" ");
			if (k && reg_pub_key_part(part, sizeof(part), k + 2) == 0 &&
			    reg_key_fingerprint(fp, sizeof(fp), part) == 0)
				json_array_append_new(keys, json_string(fp));
			tg_error_clear();
			continue;
		}
		memcpy(*kept + n, p, (size_t)(nl - p));
		n += (size_t)(nl - p);
	}
	(*kept)[n] = '\0';
	return 0;
}

int tg_registry_key_revoke_approver(json_t **out, tg_registry *r, const char *principal,
				    const tg_actor *who)
{
	_cleanup_free_ char *path = reg_trusted_approvers_path(r), *old = NULL, *kept = NULL;
	_cleanup_json_ json_t *keys = json_array();
	json_t *k;
	size_t len = 0, i;
	int rc;

	*out = NULL;
	if (!path || !keys)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_principal_check(principal)) < 0)
		return rc;
	if (access(path, F_OK) == 0 && (rc = tg_file_read(&old, &len, path, 1u << 20)) < 0)
		return tg_error_prefix("%s", path);
	if ((rc = drop_principal(&kept, keys, old ? old : "", principal)) < 0)
		return rc;
	if (!json_array_size(keys))
		return tg_error_set(TG_ERR_NOTFOUND, "%s is not in %s", principal, path);
	if ((rc = tg_file_write_atomic(path, kept, strlen(kept), 0600)) < 0)
		return rc;
	if ((rc = reg_begin(r)) < 0)
		return rc;
	json_array_foreach(keys, i, k) {
		if ((rc = exec_text(r, "INSERT OR REPLACE INTO approver_revocations(key, principal, at) "
				       "VALUES(?1, ?2, ?3)", json_string_value(k), principal, 1)) < 0) {
			reg_rollback(r);
			return rc;
		}
	}
	{
		_cleanup_json_ json_t *d = json_pack("{s:s, s:O, s:I}", "principal", principal, "keys", keys,
						     "at", (json_int_t)tg_time_now());
		if ((rc = reg_audit_commit(r, who, "key_revoke_approver", NULL, d)) < 0)
			return rc;
	}
	*out = json_pack("{s:s, s:O, s:I}", "principal", principal, "keys", keys, "revoked_at",
			 (json_int_t)tg_time_now());
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}
