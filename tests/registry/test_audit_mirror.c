/*
 * tests/registry/test_audit_mirror.c: hostile values through the audit
 * mirror (registry/record/audit_mirror.c). Entries appended through the
 * public tg_registry_audit with a newline, an '=' and a would-be field in
 * the event, the tool and the details' reason, an over-long reason, and a
 * transaction rolled back: on a datagram socket the test binds (config.json
 * audit_mirror_socket), each entry is one datagram of "KEY=value" lines in
 * which no value starts a line of its own, control bytes are '?', a value
 * is cut at 256 bytes; the entries of a rolled-back transaction never
 * arrive, a committed one's only after its COMMIT. The syslog form escapes
 * '"' and '\'. Calls the record layer's reg_begin / reg_audit_append /
 * reg_rollback for the transaction case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "registry/record/record.h"
#include "test_support.h"

/* A home whose config mirrors to a socket bound here; *fd its read end. */
static tg_registry *open_mirrored(char **home, int *fd, const char *mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[4096], cfg[4400];
	tg_registry *r = NULL;
	FILE *f;

	*home = tgt_home_make("tg_mirror");
	assert_int_equal(tg_registry_open(&r, *home, 1), 0);
	tg_registry_free(r);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.sock", *home);
	*fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(path, sizeof(path), "%s/config.json", *home);
	snprintf(cfg, sizeof(cfg), "{\"audit_mirror\":\"%s\",\"audit_mirror_socket\":\"%s\"}", mode,
		 sa.sun_path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(cfg, f);
	fclose(f);
	assert_int_equal(tg_registry_open(&r, *home, 0), 0);
	return r;
}

/* The next datagram into buf (NUL-terminated), its length; 0 when none. */
static size_t next(int fd, char *buf, size_t n)
{
	ssize_t k = recv(fd, buf, n - 1, 0);

	if (k < 0)
		return 0;
	buf[k] = '\0';
	return (size_t)k;
}

/* The value of line KEY= in a journal datagram, or NULL. */
static const char *field(const char *d, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = d;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		if (!e)
			return NULL;
		if ((size_t)(e - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			snprintf(out, n, "%.*s", (int)(e - p - kl - 1), p + kl + 1);
			return out;
		}
		p = e + 1;
	}
	return NULL;
}

static void test_hostile_values(void **state)
{
	tg_actor who = { "mcp", "s\nTOOLGATE_HASH=forged" };
	char *home, buf[65536], v[4096], longr[1000];
	json_t *d;
	int fd;
	tg_registry *r = open_mirrored(&home, &fd, "journal");
	const char *p;
	size_t n;

	(void)state;
	memset(longr, 'x', sizeof(longr) - 1);
	longr[sizeof(longr) - 1] = '\0';
	d = json_pack("{s:s, s:i}", "reason", "a\nTOOLGATE_OUTCOME=ok\x01", "version", 7);
	assert_int_equal(tg_registry_audit(r, &who, "ev\nPRIORITY=0", "t=x\r", d), 0);
	json_decref(d);
	n = next(fd, buf, sizeof(buf));
	assert_true(n > 0);
	/* every line is KEY=value with a known key: no value began a line */
	for (p = buf; *p; p = strchr(p, '\n') + 1)
		assert_true(strncmp(p, "TOOLGATE_", 9) == 0 || strncmp(p, "MESSAGE=", 8) == 0 ||
			    strncmp(p, "PRIORITY=", 9) == 0 || strncmp(p, "SYSLOG_IDENTIFIER=", 18) == 0);
	assert_string_equal(field(buf, "TOOLGATE_EVENT", v, sizeof(v)), "ev?PRIORITY=0");
	assert_string_equal(field(buf, "PRIORITY", v, sizeof(v)), "6");
	assert_string_equal(field(buf, "TOOLGATE_TOOL", v, sizeof(v)), "t=x?");
	assert_string_equal(field(buf, "TOOLGATE_REASON", v, sizeof(v)), "a?TOOLGATE_OUTCOME=ok?");
	assert_null(field(buf, "TOOLGATE_OUTCOME", v, sizeof(v)));
	assert_string_equal(field(buf, "TOOLGATE_VERSION", v, sizeof(v)), "7");
	/* the session id was cleaned by the actor string before the chain */
	assert_string_equal(field(buf, "TOOLGATE_ACTOR", v, sizeof(v)), "mcp:s_TOOLGATE_HASH_forged");
	assert_int_equal(strlen(field(buf, "TOOLGATE_HASH", v, sizeof(v))), 64);
	/* an over-long value is cut at 256 bytes */
	d = json_pack("{s:s}", "reason", longr);
	assert_int_equal(tg_registry_audit(r, NULL, "long", NULL, d), 0);
	json_decref(d);
	assert_true(next(fd, buf, sizeof(buf)) > 0);
	assert_int_equal(strlen(field(buf, "TOOLGATE_REASON", v, sizeof(v))), 256);
	assert_null(field(buf, "TOOLGATE_TOOL", v, sizeof(v)));
	assert_int_equal(next(fd, buf, sizeof(buf)), 0);
	tg_registry_free(r);
	close(fd);
	tgt_home_remove(home);
}

/* Entries of a rolled-back transaction are never sent; those of the next
 * committed one are, with the numbers the chain gave them. */
static void test_rollback_sends_nothing(void **state)
{
	char *home, buf[65536], v[64];
	int fd;
	tg_registry *r = open_mirrored(&home, &fd, "journal");

	(void)state;
	assert_int_equal(reg_begin(r), 0);
	assert_int_equal(reg_audit_append(r, NULL, "undone_1", NULL, NULL), 0);
	assert_int_equal(reg_audit_append(r, NULL, "undone_2", NULL, NULL), 0);
	reg_rollback(r);
	assert_int_equal(next(fd, buf, sizeof(buf)), 0);
	assert_int_equal(reg_begin(r), 0);
	assert_int_equal(reg_audit_append(r, NULL, "kept", NULL, NULL), 0);
	assert_int_equal(next(fd, buf, sizeof(buf)), 0); /* not before the commit */
	assert_int_equal(reg_commit(r), 0);
	assert_true(next(fd, buf, sizeof(buf)) > 0);
	assert_string_equal(field(buf, "TOOLGATE_EVENT", v, sizeof(v)), "kept");
	assert_string_equal(field(buf, "TOOLGATE_SEQ", v, sizeof(v)), "1");
	assert_int_equal(next(fd, buf, sizeof(buf)), 0);
	tg_registry_free(r);
	close(fd);
	tgt_home_remove(home);
}

static void test_syslog_quoting(void **state)
{
	char *home, buf[65536];
	json_t *d;
	int fd;
	tg_registry *r = open_mirrored(&home, &fd, "syslog");

	(void)state;
	d = json_pack("{s:s}", "reason", "say \"hi\" \\ bye\n");
	assert_int_equal(tg_registry_audit(r, NULL, "quoted", NULL, d), 0);
	json_decref(d);
	assert_true(next(fd, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "]: audit seq=\"1\" event=\"quoted\" actor=\"system\" "
				    "reason=\"say \\\"hi\\\" \\\\ bye?\" hash=\""));
	assert_null(strchr(buf, '\n'));
	tg_registry_free(r);
	close(fd);
	tgt_home_remove(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_values),
		cmocka_unit_test(test_rollback_sends_nothing),
		cmocka_unit_test(test_syslog_quoting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
