/*
 * cli/cmd_pull.c: `toolgate pull [REMOTE] [--trust-signed] [--watch
 * SECONDS]`: take a remote's versions, each re-vetted, re-built and
 * re-tested here (docs/STORE.md), and print per tool what was taken, with
 * each version's signature, then the remote hosts' signed decisions and
 * what became of each here (followed, a claim not followed and why, or
 * refused and why). It exits 1 when anything received was not taken as
 * the remote claimed it (a version that did not pass here while the remote
 * said it did, a refused ref, tool or decision, a remote active pointer not
 * followed). --watch pulls again every SECONDS (1 to 86400) until SIGINT or
 * SIGTERM, which end it with exit 0 once the pull under way is done; a
 * failed pull is reported and the next one still runs.
 */
#include "cli.h"
#include "registry/registry.h"

#include <signal.h>
#include <string.h>
#include <time.h>

/* ", signature: good from P" / unsigned / untrusted (why) / bad (why) */
static void print_signature(const json_t *sig)
{
	const char *st = json_string_value(json_object_get(sig, "state"));

	if (!st)
		return;
	printf(", signature: %s", cli_line(st));
	if (json_object_get(sig, "principal"))
		printf(" from %s", cli_jline(json_object_get(sig, "principal")));
	if (json_object_get(sig, "why"))
		printf(" (%s)", cli_jline(json_object_get(sig, "why")));
}

/* "  decision: approve t v2 by KEY (PRINCIPAL): followed" and the like;
 * 1 when one was refused. */
static int print_decisions(const json_t *res)
{
	const json_t *d;
	size_t i;
	int bad = 0;

	json_array_foreach(json_object_get(res, "decisions"), i, d) {
		const char *st = json_string_value(json_object_get(d, "state"));
		const char *pr = json_string_value(json_object_get(d, "principal"));
		printf("  decision: %s %s v%lld by %s", cli_jline(json_object_get(d, "decision")),
		       cli_jline(json_object_get(d, "tool")),
		       (long long)json_integer_value(json_object_get(d, "version")),
		       cli_jline(json_object_get(d, "signer")));
		if (pr && pr[0])
			printf(" (%s)", cli_line(pr));
		if (st && !strcmp(st, "followed"))
			printf(": followed\n");
		else if (st && !strcmp(st, "already"))
			printf(": already in force here\n");
		else if (st && !strcmp(st, "claim"))
			printf(": claim, not followed: %s\n", cli_jline(json_object_get(d, "why")));
		else
			printf(": refused: %s\n", cli_jline(json_object_get(d, "why")));
		bad |= st && !strcmp(st, "refused");
	}
	return bad;
}

/* Print one pull's answer; TG_EXIT_VERDICT when something was not taken. */
static int print_pull(tg_cli *cli, const json_t *res)
{
	const json_t *t, *v;
	size_t i, j;
	int rc, bad;

	bad = json_integer_value(json_object_get(res, "disagreements")) > 0 ||
	      json_array_size(json_object_get(res, "refused")) > 0;
	json_array_foreach(json_object_get(res, "tools"), i, t) {
		json_t *a = json_object_get(t, "active");
		/* not followed because a signed removal was: as it should be */
		if (a && !json_is_true(json_object_get(a, "followed")) &&
		    !json_is_true(json_object_get(a, "removed")))
			bad = 1;
	}
	json_array_foreach(json_object_get(res, "decisions"), i, v) {
		const char *st = json_string_value(json_object_get(v, "state"));
		if (st && !strcmp(st, "refused"))
			bad = 1;
	}
	if (cli->json) {
		rc = cli_print_json(res);
		return rc ? rc : bad ? TG_EXIT_VERDICT : TG_EXIT_OK;
	}
	json_array_foreach(json_object_get(res, "tools"), i, t) {
		json_t *a = json_object_get(t, "active");
		printf("%s: %s\n", cli_jline(json_object_get(t, "name")),
		       cli_jline(json_object_get(t, "relation")));
		json_array_foreach(json_object_get(t, "versions"), j, v) {
			printf("  v%lld %s", (long long)json_integer_value(json_object_get(v, "version")),
			       cli_jline(json_object_get(v, "status")));
			if (json_is_true(json_object_get(v, "disagree")))
				printf(" (DISAGREES: the remote claimed %s)",
				       cli_jline(json_object_get(v, "claimed_status")));
			print_signature(json_object_get(v, "signature"));
			if (json_is_string(json_object_get(v, "tests_skipped")))
				printf(", tests skipped: %s",
				       cli_jline(json_object_get(v, "tests_skipped")));
			printf("\n");
		}
		if (json_object_get(t, "problem"))
			printf("  refused: %s\n", cli_jline(json_object_get(t, "problem")));
		if (a) {
			if (json_is_true(json_object_get(a, "followed")))
				printf("  active: v%lld\n",
				       (long long)json_integer_value(json_object_get(a, "remote_version")));
			else
				printf("  remote active v%lld not followed: %s\n",
				       (long long)json_integer_value(json_object_get(a, "remote_version")),
				       cli_jline(json_object_get(a, "why")));
		}
	}
	print_decisions(res);
	json_array_foreach(json_object_get(res, "refused"), i, v)
		printf("refused: %s\n", cli_jline(v));
	return bad ? TG_EXIT_VERDICT : TG_EXIT_OK;
}

static int pull_once(tg_cli *cli, const char *remote, unsigned flags)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	int rc;

	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "pull");
	rc = tg_registry_pull(&res, r, remote, flags, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "pull");
	return print_pull(cli, res);
}

static volatile sig_atomic_t stop_watch;

static void on_stop(int sig)
{
	(void)sig;
	stop_watch = 1;
}

/* Pull every interval seconds until SIGINT or SIGTERM (exit 0). */
static int watch(tg_cli *cli, const char *remote, unsigned flags, unsigned interval)
{
	struct sigaction sa;
	unsigned long n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop_watch) {
		time_t now = time(NULL);
		struct tm tm;
		char when[32] = "";
		unsigned left;
		int rc;
		if (gmtime_r(&now, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		n++;
		if (!cli->json)
			printf("pull %lu at %s\n", n, when);
		fflush(stdout);
		rc = pull_once(cli, remote, flags);
		if (!cli->json)
			printf("pull %lu: exit %d\n", n, rc);
		fflush(stdout);
		for (left = interval; left > 0 && !stop_watch; left--)
			sleep(1);
	}
	if (!cli->json)
		printf("pull --watch: stopped after %lu pulls\n", n);
	return TG_EXIT_OK;
}

int cmd_pull(tg_cli *cli, int argc, char **argv)
{
	const char *remote;
	unsigned flags = 0, interval = 0;
	int rc, k, n = 0;
	char **rest;

	/* --trust-signed and --watch N anywhere among the arguments;
	 * cli_one_arg sees the rest */
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest)
		return cli_fail(tg_error_set(TG_ERR_NOMEM, "out of memory"), "pull");
	for (k = 0; k < argc; k++) {
		if (k > 0 && !strcmp(argv[k], "--trust-signed")) {
			flags |= TG_PULL_TRUST_SIGNED;
		} else if (k > 0 && !strcmp(argv[k], "--watch")) {
			char *end = NULL;
			unsigned long v = k + 1 < argc ? strtoul(argv[k + 1], &end, 10) : 0;
			if (!end || *end || v < 1 || v > 86400 || argv[k + 1][0] == '-') {
				free(rest);
				return cli_usage(cli, "--watch needs SECONDS, 1 to 86400");
			}
			interval = (unsigned)v;
			k++;
		} else {
			rest[n++] = argv[k];
		}
	}
	rc = cli_one_arg(cli, n, rest, 1, &remote);
	free(rest);
	if (rc != 0)
		return rc;
	return interval ? watch(cli, remote, flags, interval) : pull_once(cli, remote, flags);
}
