/*
 * registry/record/audit_mirror.c: a copy of every audit entry in the host's
 * journal or syslog (config.json "audit_mirror", docs/CONFIG.md). audit.c
 * hands each entry it inserts to reg_audit_mirror_add, which encodes it at
 * once (the fields are at hand) and keeps it with the transaction;
 * registry.c's transaction hooks send what a COMMIT kept
 * (reg_audit_mirror_flush) and forget what a ROLLBACK undid
 * (reg_audit_mirror_drop), so the mirror never shows an entry the chain
 * does not hold. Sending is best effort: one datagram per entry on a unix
 * socket, never blocking, errors counted and ignored: the SQLite chain is
 * the record, the mirror never fails a call or lets one through.
 *
 * journal: journald's native protocol ("FIELD=value\n" lines in one
 * datagram to /run/systemd/journal/socket), fields TOOLGATE_SEQ, _EVENT,
 * _TOOL, _VERSION, _ACTOR, _PRINCIPAL, _OUTCOME, _REASON, _HASH, _HOME
 * beside MESSAGE, PRIORITY and SYSLOG_IDENTIFIER. syslog: one RFC 3164
 * line to /dev/log with the same fields as key="value" pairs. auto:
 * journal when journald's socket exists, else syslog. Strings of agent or
 * tool origin are values only (never a format), cut at MIRROR_VALUE bytes,
 * control bytes replaced. audit_mirror_socket names another socket for
 * both (tests bind one). Calls: only libc (socket, sendto).
 */
#include "registry/record/record.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#define MIRROR_VALUE 256      /* bytes of one field's value */
#define MIRROR_PENDING 4096   /* entries kept for one transaction */
#define MIRROR_JOURNAL "/run/systemd/journal/socket"
#define MIRROR_SYSLOG "/dev/log"

typedef struct mirror_entry {
	int64_t seq;
	size_t len;
	char *data;
} mirror_entry;

struct reg_mirror {
	int mode;              /* TG_AUDIT_MIRROR_JOURNAL or _SYSLOG once resolved */
	const char *path;      /* the socket the datagrams go to */
	mirror_entry *pend;
	size_t n, cap;
	uint64_t sent, dropped;
};

/* A growing text buffer; a failed growth marks it failed (best effort). */
typedef struct mbuf {
	char *p;
	size_t len, cap;
	int failed;
} mbuf;

static void put(mbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void puts_(mbuf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* v cut at MIRROR_VALUE bytes, control bytes as '?'; in syslog form '"'
 * and '\' escaped. */
static void put_value(mbuf *b, const char *v, int quoted)
{
	size_t i;

	for (i = 0; v[i] && i < MIRROR_VALUE; i++) {
		unsigned char c = (unsigned char)v[i];
		char ch = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
		if (quoted && (ch == '"' || ch == '\\'))
			put(b, "\\", 1);
		put(b, &ch, 1);
	}
}

/* One field: "TOOLGATE_KEY=value\n" (journal) or " key=\"value\"" (syslog). */
static void field(mbuf *b, int mode, const char *key, const char *v)
{
	char lower[32];
	size_t i;

	if (!v)
		return;
	if (mode == TG_AUDIT_MIRROR_JOURNAL) {
		puts_(b, key);
		put(b, "=", 1);
		put_value(b, v, 0);
		put(b, "\n", 1);
		return;
	}
	for (i = 0; key[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)(key[i] >= 'A' && key[i] <= 'Z' ? key[i] + 32 : key[i]);
	lower[i] = '\0';
	put(b, " ", 1);
	puts_(b, lower + (strncmp(lower, "toolgate_", 9) == 0 ? 9 : 0));
	put(b, "=\"", 2);
	put_value(b, v, 1);
	put(b, "\"", 1);
}

/* OUTCOME: the details' "status" (a create's), else "ok"/"failed" from
 * their "ok", else none. */
static const char *outcome(const json_t *d)
{
	const json_t *ok = json_object_get(d, "ok");
	const char *status = json_string_value(json_object_get(d, "status"));

	if (status)
		return status;
	if (json_is_boolean(ok))
		return json_is_true(ok) ? "ok" : "failed";
	return NULL;
}

int tg_audit_mirror_target(const tg_config *cfg, const char **path)
{
	int mode = cfg->audit_mirror;

	*path = NULL;
	if (mode == TG_AUDIT_MIRROR_OFF)
		return mode;
	if (mode == TG_AUDIT_MIRROR_AUTO)
		mode = cfg->audit_mirror_socket || access(MIRROR_JOURNAL, F_OK) == 0
			       ? TG_AUDIT_MIRROR_JOURNAL
			       : TG_AUDIT_MIRROR_SYSLOG;
	*path = cfg->audit_mirror_socket ? cfg->audit_mirror_socket
		: mode == TG_AUDIT_MIRROR_JOURNAL ? MIRROR_JOURNAL
						  : MIRROR_SYSLOG;
	return mode;
}

/* The handle's mirror, made at its first entry (auto looks for journald
 * once per handle), or NULL when off. */
static reg_mirror *mirror_get(tg_registry *r)
{
	reg_mirror *m = r->mirror;

	if (m || r->cfg.audit_mirror == TG_AUDIT_MIRROR_OFF)
		return m;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->mode = tg_audit_mirror_target(&r->cfg, &m->path);
	r->mirror = m;
	return m;
}

/* The syslog line's header: "<PRI>Mmm dd hh:mm:ss toolgate[pid]: audit",
 * PRI LOG_DAEMON with the journal form's priority (err for chain_break,
 * else info). */
static void syslog_head(mbuf *b, int64_t at, int err)
{
	char head[96];
	time_t t = (time_t)at;
	struct tm tm;
	size_t n;

	localtime_r(&t, &tm);
	n = (size_t)snprintf(head, sizeof(head), "<%d>", 3 * 8 + (err ? 3 : 6));
	strftime(head + n, sizeof(head) - n, "%b %e %H:%M:%S ", &tm);
	snprintf(head + strlen(head), sizeof(head) - strlen(head), "toolgate[%ld]: audit",
		 (long)getpid());
	puts_(b, head);
}

void reg_audit_mirror_add(tg_registry *r, const reg_mirror_fields *f)
{
	reg_mirror *m = mirror_get(r);
	const json_t *d = f->details;
	const char *principal = r->hooks && r->hooks->principal ? r->hooks->principal->name
							       : json_string_value(
									 json_object_get(d, "principal"));
	const json_t *ver = json_object_get(d, "version");
	char seq[24], version[24] = "", msg[160];
	mbuf b = { 0 };
	int mode, err = strcmp(f->event, "chain_break") == 0;

	if (!m)
		return;
	mode = m->mode;
	if (m->n >= MIRROR_PENDING) {
		m->dropped++;
		return;
	}
	snprintf(seq, sizeof(seq), "%lld", (long long)f->seq);
	if (json_is_integer(ver))
		snprintf(version, sizeof(version), "%lld", (long long)json_integer_value(ver));
	if (mode == TG_AUDIT_MIRROR_JOURNAL) {
		snprintf(msg, sizeof(msg), "toolgate audit %s: %.40s%s%.64s", seq, f->event,
			 f->tool ? " " : "", f->tool ? f->tool : "");
		field(&b, mode, "MESSAGE", msg);
		field(&b, mode, "PRIORITY", err ? "3" : "6");
		field(&b, mode, "SYSLOG_IDENTIFIER", "toolgate");
	} else {
		syslog_head(&b, f->at, err);
	}
	field(&b, mode, "TOOLGATE_SEQ", seq);
	field(&b, mode, "TOOLGATE_EVENT", f->event);
	field(&b, mode, "TOOLGATE_TOOL", f->tool);
	field(&b, mode, "TOOLGATE_VERSION", version[0] ? version : NULL);
	field(&b, mode, "TOOLGATE_ACTOR", f->actor);
	field(&b, mode, "TOOLGATE_PRINCIPAL", principal);
	field(&b, mode, "TOOLGATE_OUTCOME", outcome(d));
	field(&b, mode, "TOOLGATE_REASON", json_string_value(json_object_get(d, "reason")));
	field(&b, mode, "TOOLGATE_HASH", f->hash);
	field(&b, mode, "TOOLGATE_HOME", r->home);
	if (!b.failed && m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 8;
		mirror_entry *p = realloc(m->pend, cap * sizeof(*p));
		if (p) {
			m->pend = p;
			m->cap = cap;
		}
	}
	if (b.failed || m->n == m->cap) {
		free(b.p);
		m->dropped++;
		return;
	}
	m->pend[m->n++] = (mirror_entry){ f->seq, b.len, b.p };
}

void reg_audit_mirror_keep(tg_registry *r, int64_t through_seq)
{
	reg_mirror *m = r->mirror;

	while (m && m->n && m->pend[m->n - 1].seq > through_seq)
		free(m->pend[--m->n].data);
}

void reg_audit_mirror_drop(tg_registry *r)
{
	reg_audit_mirror_keep(r, INT64_MIN);
}

void reg_audit_mirror_flush(tg_registry *r)
{
	reg_mirror *m = r->mirror;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	size_t i;

	if (!m || !m->n)
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", m->path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (i = 0; i < m->n; i++) {
		if (fd >= 0 && sendto(fd, m->pend[i].data, m->pend[i].len, MSG_DONTWAIT | MSG_NOSIGNAL,
				      (struct sockaddr *)&sa, sizeof(sa)) == (ssize_t)m->pend[i].len)
			m->sent++;
		else
			m->dropped++;
		free(m->pend[i].data);
	}
	m->n = 0;
	if (fd >= 0)
		close(fd);
}

void reg_audit_mirror_free(tg_registry *r)
{
	if (!r->mirror)
		return;
	reg_audit_mirror_drop(r);
	free(r->mirror->pend);
	free(r->mirror);
	r->mirror = NULL;
}
