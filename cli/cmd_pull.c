/*
 * cli/cmd_pull.c: `toolgate pull [REMOTE] [--trust-signed]`: take a remote's
 * versions, each re-vetted, re-built and re-tested here (docs/STORE.md),
 * and print per tool what was taken, with each version's signature. It
 * exits 1 when anything received was not taken as the remote claimed it (a
 * version that did not pass here while the remote said it did, a refused
 * ref or tool, a remote active pointer not followed).
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

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

int cmd_pull(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *remote;
	json_t *t, *v;
	size_t i, j;
	unsigned flags = 0;
	int rc, bad = 0, k, n = 0;
	char **rest;

	/* --trust-signed anywhere among the arguments; cli_one_arg sees the rest */
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest)
		return cli_fail(tg_error_set(TG_ERR_NOMEM, "out of memory"), "pull");
	for (k = 0; k < argc; k++) {
		if (k > 0 && !strcmp(argv[k], "--trust-signed"))
			flags |= TG_PULL_TRUST_SIGNED;
		else
			rest[n++] = argv[k];
	}
	rc = cli_one_arg(cli, n, rest, 1, &remote);
	free(rest);
	if (rc != 0)
		return rc;
	rc = tg_registry_open_flag(&r, cli->home_flag, 0);
	if (rc < 0)
		return cli_fail(rc, "pull");
	rc = tg_registry_pull(&res, r, remote, flags, &who);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "pull");
	bad = json_integer_value(json_object_get(res, "disagreements")) > 0 ||
	      json_array_size(json_object_get(res, "refused")) > 0;
	json_array_foreach(json_object_get(res, "tools"), i, t) {
		json_t *a = json_object_get(t, "active");
		if (a && !json_is_true(json_object_get(a, "followed")))
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
	json_array_foreach(json_object_get(res, "refused"), i, v)
		printf("refused: %s\n", cli_jline(v));
	return bad ? TG_EXIT_VERDICT : TG_EXIT_OK;
}
