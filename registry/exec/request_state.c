/*
 * registry/exec/request_state.c: the requestState of a 2026-07-28 MCP
 * input_required result (docs/MCP.md, "Per-call approvals in the
 * 2026-07-28 era"). The MCP server hands the client an opaque string and
 * gets it back with the client's answer; since the client may change it,
 * the state is integrity-protected: "tgs1." + base64(payload JSON) + "." +
 * hex(HMAC-SHA256(key, everything before the last dot)), computed with
 * OpenSSL's libcrypto, under a 256-bit key made on first use in
 * <home>/keys/request_state_key (0600, created once with link(2) so that
 * two processes racing to make it agree on one key). The payload binds the
 * principal, a digest of the request it answers, a random state id and an
 * expiry (now + call_approval_timeout_ms); the caller adds what it needs
 * (the approval asked about). Redeeming checks, in order: the MAC, the
 * principal, the request, the expiry, then records the state id in
 * used_request_states (schema 5): a state is good for one retry only. A
 * payload's "journal" (the bridged calls the run made before it asked,
 * replay.c) is kept out of the state: a replay_journals row (schema 7)
 * keyed by the state id holds it, and the state seals its sha256, so a
 * row changed in SQLite is refused at the redeem ("journal altered").
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry/exec/exec.h"

#define STATE_PREFIX "tgs1."
#define KEY_FILE "keys/request_state_key"
#define KEY_LEN 32
#define STATE_MAX (64u * 1024u)

static int read_key(unsigned char key[KEY_LEN], const char *path)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 1 : tg_error_errno(TG_ERR_IO, errno, "open %s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != KEY_LEN ||
	    (st.st_mode & 077)) {
		close(fd);
		return tg_error_set(TG_ERR_IO, "%s: must be a %d-byte file of mode 0600", path,
				    KEY_LEN);
	}
	n = read(fd, key, KEY_LEN);
	close(fd);
	if (n != KEY_LEN)
		return tg_error_set(TG_ERR_IO, "%s: short read", path);
	return 0;
}

/* The key, made on first use. */
static int state_key(tg_registry *r, unsigned char key[KEY_LEN])
{
	_cleanup_free_ char *path = tg_path_join(r->home, KEY_FILE);
	_cleanup_free_ char *dir = tg_path_join(r->home, "keys");
	_cleanup_free_ char *tmp = NULL;
	unsigned char fresh[KEY_LEN];
	int rc, fd;

	if (!path || !dir)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = read_key(key, path);
	if (rc <= 0)
		return rc;
	if ((rc = tg_mkdir_p(dir, 0700)) < 0 || (rc = tg_random_bytes(fresh, KEY_LEN)) < 0)
		return rc;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	fd = mkstemp(tmp); /* mode 0600 */
	if (fd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "create %s", tmp);
	if (write(fd, fresh, KEY_LEN) != KEY_LEN || fsync(fd) < 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "write %s", tmp);
		close(fd);
		unlink(tmp);
		return rc;
	}
	close(fd);
	/* link fails when another process made the key first: use theirs */
	if (link(tmp, path) < 0 && errno != EEXIST) {
		rc = tg_error_errno(TG_ERR_IO, errno, "create %s", path);
		unlink(tmp);
		return rc;
	}
	unlink(tmp);
	tg_cleanse(fresh, sizeof(fresh));
	rc = read_key(key, path);
	return rc == 1 ? tg_error_set(TG_ERR_IO, "%s vanished", path) : rc;
}

/* hex(HMAC-SHA256(key, data)) into out[65]. */
static int mac_hex(char out[65], const unsigned char key[KEY_LEN], const char *data, size_t len)
{
	unsigned char md[32];
	unsigned i;
	int rc;

	if ((rc = tg_hmac_sha256(md, key, KEY_LEN, data, len)) < 0)
		return rc;
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int tg_registry_state_seal(char **out, tg_registry *r, const json_t *payload,
			   const char *principal, const char *request_sha256)
{
	_cleanup_json_ json_t *p = json_deep_copy(payload), *journal = NULL;
	_cleanup_free_ char *text = NULL, *b64 = NULL, *state = NULL;
	unsigned char key[KEY_LEN], sid[16];
	int64_t exp;
	char sidhex[33], mac[65];
	size_t n, blen, i;
	int rc;

	*out = NULL;
	if (!p || !json_is_object(p))
		return tg_error_set(TG_ERR_INVALID, "request state: the payload must be an object");
	if ((rc = tg_random_bytes(sid, sizeof(sid))) < 0)
		return rc;
	for (i = 0; i < sizeof(sid); i++)
		snprintf(sidhex + 2 * i, 3, "%02x", sid[i]);
	exp = tg_wall_ms() + (int64_t)r->cfg.call_approval_timeout_ms;
	if (json_object_set_new(p, "sid", json_string(sidhex)) < 0 ||
	    json_object_set_new(p, "p", json_string(principal)) < 0 ||
	    json_object_set_new(p, "req", json_string(request_sha256)) < 0 ||
	    json_object_set_new(p, "exp", json_integer((json_int_t)exp)) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* the journal of the run stays here, bound by its digest */
	journal = json_incref(json_object_get(p, "journal"));
	json_object_del(p, "journal");
	if (journal && !json_is_array(journal))
		return tg_error_set(TG_ERR_INVALID, "request state: the journal must be an array");
	if (json_array_size(journal) > 0) {
		char digest[65];
		if ((rc = reg_journal_store(r, sidhex, principal, exp, journal, digest)) < 0)
			return rc;
		if (json_object_set_new(p, "journal_sha256", json_string(digest)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	n = strlen(text);
	blen = sizeof(STATE_PREFIX) - 1 + 4 * ((n + 2) / 3);
	if (blen > STATE_MAX)
		return tg_error_set(TG_ERR_LIMIT, "request state: the payload is too large");
	b64 = malloc(blen + 1);
	state = malloc(blen + 1 + 64 + 1);
	if (!b64 || !state)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	memcpy(b64, STATE_PREFIX, sizeof(STATE_PREFIX) - 1);
	if ((rc = tg_base64_encode(b64 + sizeof(STATE_PREFIX) - 1, text, n)) < 0)
		return rc;
	if ((rc = state_key(r, key)) < 0)
		return rc;
	rc = mac_hex(mac, key, b64, strlen(b64));
	tg_cleanse(key, sizeof(key));
	if (rc < 0)
		return rc;
	snprintf(state, blen + 1 + 64 + 1, "%s.%s", b64, mac);
	*out = TG_TAKE_PTR(state);
	return 0;
}

/* Spend state sid and take its journal back (payload p gets "journal"),
 * in one transaction: a state refused here is not spent. */
static int used_insert(tg_registry *r, const char *sid, const char *principal, int64_t exp,
		       json_t *p)
{
	_cleanup_stmt_ sqlite3_stmt *del = NULL, *st = NULL;
	const char *jd = json_string_value(json_object_get(p, "journal_sha256"));
	json_t *journal = NULL;
	int rc;

	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = reg_journal_sweep(r)) < 0)
		goto fail;
	/* an expired state is refused before this table is read: forget it */
	rc = reg_prepare(r, &del, "DELETE FROM used_request_states WHERE expires_at < ?1");
	if (rc < 0)
		goto fail;
	sqlite3_bind_int64(del, 1, (sqlite3_int64)tg_wall_ms());
	if ((rc = reg_step(del)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "forget expired request states");
		goto fail;
	}
	rc = reg_prepare(r, &st, "INSERT INTO used_request_states(id, principal, used_at, "
				 "expires_at) VALUES(?1, ?2, ?3, ?4)");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, sid);
	reg_bind_text(st, 2, principal);
	sqlite3_bind_int64(st, 3, tg_time_now());
	sqlite3_bind_int64(st, 4, exp);
	rc = reg_step(st);
	if ((rc & 0xff) == SQLITE_CONSTRAINT) {
		reg_rollback(r);
		return tg_error_set(TG_ERR_DENIED,
				    "already used (a requestState is good for one retry)");
	}
	if (rc != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "record a used request state");
		goto fail;
	}
	if (jd) {
		if ((rc = reg_journal_take(r, sid, jd, &journal)) < 0)
			goto fail;
		if (json_object_set_new(p, "journal", journal) < 0) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto fail;
		}
	}
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

int tg_registry_state_redeem(json_t **out, tg_registry *r, const char *state,
			     const char *principal, const char *request_sha256)
{
	_cleanup_json_ json_t *p = NULL;
	_cleanup_free_ unsigned char *raw = NULL;
	unsigned char key[KEY_LEN];
	const char *dot, *sid, *pp, *req;
	char mac[65];
	size_t blen, pad = 0;
	int rc, n;
	json_t *exp;

	*out = NULL;
	dot = state ? strrchr(state, '.') : NULL;
	if (!state || strlen(state) > STATE_MAX + 65 ||
	    strncmp(state, STATE_PREFIX, sizeof(STATE_PREFIX) - 1) != 0 || !dot ||
	    strlen(dot + 1) != 64 || dot < state + sizeof(STATE_PREFIX) - 1)
		return tg_error_set(TG_ERR_DENIED, "integrity check failed (not a state of this "
						   "server, or altered)");
	if ((rc = state_key(r, key)) < 0)
		return rc;
	rc = mac_hex(mac, key, state, (size_t)(dot - state));
	tg_cleanse(key, sizeof(key));
	if (rc < 0)
		return rc;
	if (!tg_memeq_secret(mac, dot + 1, 64))
		return tg_error_set(TG_ERR_DENIED, "integrity check failed (not a state of this "
						   "server, or altered)");
	/* authentic from here on: it is our own text */
	blen = (size_t)(dot - state) - (sizeof(STATE_PREFIX) - 1);
	raw = malloc(blen + 1);
	if (!raw)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	n = tg_base64_decode(raw, state + sizeof(STATE_PREFIX) - 1, blen);
	if (blen >= 1 && dot[-1] == '=')
		pad++;
	if (blen >= 2 && dot[-2] == '=')
		pad++;
	if (n < 0 || (size_t)n < pad)
		return tg_error_set(TG_ERR_INTERNAL, "request state: undecodable");
	p = json_loadb((const char *)raw, (size_t)n - pad, 0, NULL);
	sid = json_string_value(json_object_get(p, "sid"));
	pp = json_string_value(json_object_get(p, "p"));
	req = json_string_value(json_object_get(p, "req"));
	exp = json_object_get(p, "exp");
	if (!sid || !pp || !req || !json_is_integer(exp))
		return tg_error_set(TG_ERR_INTERNAL, "request state: malformed payload");
	if (strcmp(pp, principal) != 0)
		return tg_error_set(TG_ERR_DENIED, "issued to another principal");
	if (strcmp(req, request_sha256) != 0)
		return tg_error_set(TG_ERR_DENIED, "issued for another request (the tool or its "
						   "arguments differ)");
	if (json_integer_value(exp) <= tg_wall_ms())
		return tg_error_set(TG_ERR_DENIED, "expired (call_approval_timeout_ms passed)");
	rc = used_insert(r, sid, principal, (int64_t)json_integer_value(exp), p);
	if (rc < 0)
		return rc;
	*out = TG_TAKE_PTR(p);
	return 0;
}
