/*
 * registry/record/keys.c: this host's signing key and the signers it trusts
 * (docs/STORE.md, "Signed verdicts"). The key is <home>/keys/signing_key
 * (an ed25519 SSH key made by `ssh-keygen`, no passphrase, 0600, never
 * overwritten), unless config.json "signing_key" names an existing one
 * (checked by tg_store_check_signing_key at every open of the store: a
 * missing or wrong configured key stops the command, exit 3, rather than
 * writing unsigned commits); when there is a key, every commit this host
 * writes to its store is signed with it (reg_sign_setup, called when the
 * store is opened), and push carries its review notes under a name taken
 * from its public key (reg_host_review_id). The
 * trusted signers are <home>/trusted_signers, in ssh-keygen's
 * allowed-signers format ("PRINCIPAL namespaces="git" KEYTYPE KEY"), which
 * `toolgate key trust` appends to and `pull` and `verify` check
 * signatures against. A good signature says "the signer vetted this
 * version"; it is a claim, recorded and shown, never a reason to skip this
 * host's own vetting.
 */
#include "registry/record/record.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define KEYS_DIR "keys"
#define KEY_FILE "keys/signing_key"
#define TRUST_FILE "trusted_signers"

char *reg_key_path(const tg_registry *r)
{
	if (r->cfg.signing_key)
		return strdup(r->cfg.signing_key);
	return tg_path_join(r->home, KEY_FILE);
}

char *reg_trusted_signers_path(const tg_registry *r)
{
	return tg_path_join(r->home, TRUST_FILE);
}

/* 16 hex digits of the sha256 of "TYPE BASE64" of this host's public key:
 * the name of its review ref on remotes (store/review_carry.c). */
int reg_host_review_id(tg_registry *r, char out[17])
{
	_cleanup_free_ char *key = reg_key_path(r), *pub = NULL, *text = NULL;
	char hex[65];
	size_t len = 0, n;
	int rc;

	out[0] = '\0';
	if (!key || asprintf(&pub, "%s.pub", key) < 0) {
		pub = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (access(pub, R_OK) != 0)
		return 0;
	if ((rc = tg_file_read(&text, &len, pub, 16384)) < 0)
		return rc;
	/* "TYPE BASE64": the key itself, not its comment */
	n = strcspn(text, " ");
	n += text[n] ? 1 + strcspn(text + n + 1, " \r\n") : 0;
	tg_sha256_hex(hex, text, n);
	snprintf(out, 17, "%.16s", hex);
	return 0;
}

int reg_sign_setup(tg_registry *r, tg_store *s)
{
	_cleanup_free_ char *key = reg_key_path(r);

	int rc;

	if (!key)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (r->cfg.signing_key) {
		if ((rc = tg_store_check_signing_key(key)) < 0)
			return rc;
	} else if (access(key, F_OK) != 0) {
		return 0;
	}
	{
		char id[17];
		if ((rc = reg_host_review_id(r, id)) < 0 || (rc = tg_store_set_review_id(s, id)) < 0)
			return rc;
	}
	return tg_store_set_signing_key(s, key);
}

/* One line of text (a public key file's first line), bounded. */
int reg_read_pub(char **out, const char *path)
{
	size_t len = 0;
	int rc;

	if ((rc = tg_file_read(out, &len, path, 16384)) < 0)
		return rc;
	(*out)[strcspn(*out, "\r\n")] = '\0';
	return 0;
}

/* "KEYTYPE BASE64 [comment]": an SSH public key line of a type ssh-keygen
 * signs with; the comment is dropped. */
int reg_pub_key_part(char *out, size_t size, const char *line)
{
	static const char *const types[] = { "ssh-ed25519 ", "ssh-rsa ", "ecdsa-sha2-nistp256 ",
					     "ecdsa-sha2-nistp384 ", "ecdsa-sha2-nistp521 ",
					     "sk-ssh-ed25519@openssh.com ", NULL };
	size_t i, tl, bl;

	for (i = 0; types[i]; i++)
		if (!strncmp(line, types[i], strlen(types[i])))
			break;
	if (!types[i])
		return tg_error_set(TG_ERR_INVALID, "not an SSH public key (ssh-ed25519 AAAA...)");
	tl = strlen(types[i]);
	bl = strspn(line + tl, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=");
	if (bl < 16 || (line[tl + bl] && line[tl + bl] != ' ') || tl + bl >= size)
		return tg_error_set(TG_ERR_INVALID, "not an SSH public key (ssh-ed25519 AAAA...)");
	snprintf(out, size, "%.*s", (int)(tl + bl), line);
	return 0;
}

/* One audit entry in its own transaction (details: a new reference, taken). */
int reg_audit_one(tg_registry *r, const tg_actor *who, const char *event, json_t *details)
{
	int rc;

	if (!details)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) == 0)
		rc = reg_audit_commit(r, who, event, NULL, details);
	json_decref(details);
	return rc;
}

static int key_json(json_t **out, tg_registry *r, int created)
{
	_cleanup_free_ char *key = reg_key_path(r), *pubp = NULL, *pub = NULL;
	char part[8192], host[128] = "localhost", *line = NULL;

	*out = NULL;
	int rc;

	if (!key || asprintf(&pubp, "%s.pub", key) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (r->cfg.signing_key && (rc = tg_store_check_signing_key(key)) < 0)
		return rc;
	if (access(key, F_OK) != 0)
		return tg_error_set(TG_ERR_NOTFOUND, "no signing key in %s (toolgate key init)", key);
	if (reg_read_pub(&pub, pubp) < 0)
		return tg_error_prefix("%s", pubp);
	if (reg_pub_key_part(part, sizeof(part), pub) < 0)
		return tg_error_prefix("%s", pubp);
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[strcspn(host, " \t\"")] = '\0';
	if (asprintf(&line, "toolgate@%s namespaces=\"git\" %s", host, part) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "key", key, "source",
			 r->cfg.signing_key ? "config" : "home", "public_key_file", pubp,
			 "public_key", part, "allowed_signers", line, "created", created);
	free(line);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int tg_registry_key_init(json_t **out, tg_registry *r, const tg_actor *who)
{
	_cleanup_free_ char *dir = tg_path_join(r->home, KEYS_DIR), *key = reg_key_path(r);
	char host[128] = "localhost", comment[160];
	int rc;

	*out = NULL;
	if (!dir || !key)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (r->cfg.signing_key)
		return tg_error_set(TG_ERR_EXISTS, "config.json signing_key names the key this host "
						   "signs with (%.300s): no key made", r->cfg.signing_key);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return tg_error_errno(TG_ERR_IO, errno, "%s", dir);
	if (chmod(dir, 0700) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "%s", dir);
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	snprintf(comment, sizeof(comment), "toolgate@%s", host);
	if ((rc = tg_store_keygen(key, comment)) < 0)
		return rc;
	if ((rc = key_json(out, r, 1)) < 0)
		return rc;
	return reg_audit_one(r, who, "key_init",
		      json_pack("{s:O}", "public_key", json_object_get(*out, "public_key")));
}

int tg_registry_key_show(json_t **out, tg_registry *r)
{
	return key_json(out, r, 0);
}

int reg_principal_check(const char *principal)
{
	size_t i;

	if (!principal[0] || strlen(principal) > 100)
		return tg_error_set(TG_ERR_INVALID, "principal: 1 to 100 characters");
	for (i = 0; principal[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._-+",
			    principal[i]))
			return tg_error_set(TG_ERR_INVALID, "principal %.100s: only letters, digits and @._-+",
					    principal);
	return 0;
}

int reg_trust_append(char *part, size_t size, const char *path, const char *principal,
		     const char *ns, const char *pubkey_file)
{
	_cleanup_free_ char *pub = NULL, *old = NULL, *text = NULL;
	size_t len = 0;
	int rc;

	if ((rc = reg_principal_check(principal)) < 0)
		return rc;
	if ((rc = reg_read_pub(&pub, pubkey_file)) < 0 || (rc = reg_pub_key_part(part, size, pub)) < 0)
		return tg_error_prefix("%s", pubkey_file);
	if (access(path, F_OK) == 0 && (rc = tg_file_read(&old, &len, path, 1u << 20)) < 0)
		return tg_error_prefix("%s", path);
	if (asprintf(&text, "%s%s%s namespaces=\"%s\" %s\n", old ? old : "",
		     len && old[len - 1] != '\n' ? "\n" : "", principal, ns, part) < 0) {
		text = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return tg_file_write_atomic(path, text, strlen(text), 0600);
}

int tg_registry_key_trust(json_t **out, tg_registry *r, const char *principal,
			  const char *pubkey_file, const tg_actor *who)
{
	_cleanup_free_ char *path = reg_trusted_signers_path(r);
	char part[8192];
	int rc;

	*out = NULL;
	if (!path)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_trust_append(part, sizeof(part), path, principal, "git", pubkey_file)) < 0)
		return rc;
	*out = json_pack("{s:s, s:s, s:s}", "principal", principal, "public_key", part,
			 "trusted_signers", path);
	if (!*out)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return reg_audit_one(r, who, "key_trust",
		      json_pack("{s:s, s:s}", "principal", principal, "public_key", part));
}

int reg_signature_json(json_t **out, tg_registry *r, const char *commit)
{
	_cleanup_free_ char *allowed = reg_trusted_signers_path(r);
	tg_store_sig sig;
	tg_store *s;
	int rc;

	*out = NULL;
	if (!allowed)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if ((rc = tg_store_commit_signature(&sig, s, commit, allowed)) < 0)
		return tg_error_prefix("signature");
	*out = json_pack("{s:s}", "state", tg_store_sig_name(sig.state));
	if (*out && sig.principal[0])
		json_object_set_new(*out, "principal", json_string(sig.principal));
	if (*out && sig.key[0])
		json_object_set_new(*out, "key", json_string(sig.key));
	if (*out && sig.why[0])
		json_object_set_new(*out, "why", json_string(sig.why));
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int reg_store(tg_registry *r, tg_store **out)
{
	int rc;

	*out = NULL;
	if (!r->store) {
		rc = tg_store_open(&r->store, r->store_path,
				   r->readonly ? TG_STORE_OPEN_READONLY : 1);
		if (rc < 0)
			return tg_error_prefix("store");
		if ((rc = reg_sign_setup(r, r->store)) < 0)
			return rc;
	}
	*out = r->store;
	return 0;
}

int tg_registry_store_opened(const tg_registry *r)
{
	return r && r->store ? 1 : 0;
}
