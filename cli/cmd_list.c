/*
 * cli/cmd_list.c: `toolgate list [--pending]`: the active toolset, one tool
 * a line (name, active version, capabilities, description), then the
 * versions waiting for a person (approve or deny). --json prints
 * {"tools":[..],"pending":[..]}; --pending only the pending ones (--json: the
 * array).
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

static void print_caps(const json_t *caps)
{
	json_t *c;
	size_t k;

	json_array_foreach(caps, k, c)
		printf(" [%s]", cli_jline(c));
}

/* The name column: 24 wide, or the longest name's width (names are
 * ^[a-z][a-z0-9_]{0,63}$, one column a byte) so long names stay aligned. */
static int name_width(const json_t *a, const json_t *b)
{
	const json_t *t;
	size_t i, w = 24;

	json_array_foreach(a, i, t)
		if (json_string_length(json_object_get(t, "name")) > w)
			w = json_string_length(json_object_get(t, "name"));
	json_array_foreach(b, i, t)
		if (json_string_length(json_object_get(t, "name")) > w)
			w = json_string_length(json_object_get(t, "name"));
	return w > 64 ? 64 : (int)w;
}

static void print_pending(const json_t *pending, int width)
{
	json_t *p;
	size_t i;

	if (json_array_size(pending) == 0) {
		printf("no versions await approval\n");
		return;
	}
	json_array_foreach(pending, i, p) {
		const char *name = cli_jline(json_object_get(p, "name"));
		const char *status = json_string_value(json_object_get(p, "status"));
		long long v = (long long)json_integer_value(json_object_get(p, "version"));
		long long act = (long long)json_integer_value(json_object_get(p, "active_version"));

		printf("%-*s v%-4lld", width, name, v);
		print_caps(json_object_get(p, "capabilities"));
		if (status && strcmp(status, "active") == 0)
			printf("  (active but not approved: calls refuse it)");
		else if (act > v)
			printf("  (v%lld, newer, is active)", act);
		name = cli_jline(json_object_get(p, "name")); /* print_caps used the ring */
		printf("  toolgate approve %s@%lld | toolgate deny %s@%lld\n", name, v, name, v);
		cli_print_claims(json_object_get(p, "claims"), "    ");
	}
}

int cmd_list(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL, *pending = NULL, *doc = NULL;
	tg_registry *r = NULL;
	json_t *t;
	char *desc;
	size_t i;
	int rc, only_pending = 0;

	for (i = 1; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--pending") == 0)
			only_pending = 1;
		else if (argv[i][0] == '-')
			return cli_usage(cli, "unknown option %.64s", argv[i]);
		else
			return cli_usage(cli, "takes no arguments");
	}
	rc = tg_registry_open_flag(&r, cli->home_flag, TG_REGISTRY_OPEN_READONLY);
	if (rc < 0)
		return cli_fail(rc, "list");
	rc = only_pending ? 0 : tg_registry_list(&res, r);
	if (rc == 0)
		rc = tg_registry_pending(&pending, r);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "list");
	if (only_pending) {
		if (cli->json)
			return cli_print_json(pending);
		print_pending(pending, name_width(pending, NULL));
		return TG_EXIT_OK;
	}
	if (cli->json) {
		doc = json_pack("{s:O, s:O}", "tools", res, "pending", pending);
		if (!doc) {
			tg_error_set(TG_ERR_NOMEM, "out of memory");
			return cli_fail(TG_ERR_NOMEM, "list");
		}
		return cli_print_json(doc);
	}
	if (json_array_size(res) == 0)
		printf("no active tools\n");
	json_array_foreach(res, i, t) {
		printf("%-*s v%-4lld", name_width(res, pending), cli_jline(json_object_get(t, "name")),
		       (long long)json_integer_value(json_object_get(t, "version")));
		print_caps(json_object_get(t, "capabilities"));
		desc = strdup(json_string_value(json_object_get(t, "description")) ?: "?");
		if (desc) {
			char *nl = strchr(desc, '\n');
			if (nl)
				*nl = '\0';
		}
		printf("  %.100s\n", cli_line(desc));
		free(desc);
	}
	if (json_array_size(pending) > 0) {
		printf("\npending approval:\n");
		print_pending(pending, name_width(res, pending));
	}
	return TG_EXIT_OK;
}
