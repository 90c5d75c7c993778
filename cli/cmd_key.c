/*
 * cli/cmd_key.c: `toolgate key init | show | trust PRINCIPAL PUBKEY_FILE`
 * (docs/STORE.md, "Signed verdicts"). init makes this host's signing key
 * (<home>/keys/signing_key, ed25519, refused when one exists or when
 * config.json signing_key names an existing key) and prints its public key
 * and the allowed-signers line other hosts trust it with; from then on
 * every commit this host writes is signed. show names the key in use (the
 * configured one, checked, or the home's). trust adds another
 * host's public key to <home>/trusted_signers, against which pull and
 * verify check signatures. trust-approver adds a key whose signed decisions
 * a pull follows (<home>/trusted_approvers, docs/STORE.md "Signed
 * decisions"); revoke-approver PRINCIPAL removes it and records when.
 */
#include "cli.h"
#include "registry/registry.h"

#include <string.h>

int cmd_key(tg_cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_t *res = NULL;
	tg_registry *r = NULL;
	tg_actor who = { "cli", NULL };
	const char *sub = argc > 1 ? argv[1] : "show";
	int rc;
	int trusts = !strcmp(sub, "trust") || !strcmp(sub, "trust-approver");
	int revokes = !strcmp(sub, "revoke-approver");

	if (strcmp(sub, "init") && strcmp(sub, "show") && !trusts && !revokes)
		return cli_usage(cli, "unknown subcommand %.64s (init, show, trust, trust-approver, "
				      "revoke-approver)", sub);
	if (trusts && argc != 4)
		return cli_usage(cli, "%s needs PRINCIPAL PUBKEY_FILE", sub);
	if (revokes && argc != 3)
		return cli_usage(cli, "revoke-approver needs PRINCIPAL");
	if (!trusts && !revokes && argc > 2)
		return cli_usage(cli, "%s takes no argument", sub);
	rc = tg_registry_open_flag(&r, cli->home_flag, !strcmp(sub, "show") ? TG_REGISTRY_OPEN_READONLY : 0);
	if (rc < 0)
		return cli_fail(rc, "key");
	if (!strcmp(sub, "init"))
		rc = tg_registry_key_init(&res, r, &who);
	else if (!strcmp(sub, "trust"))
		rc = tg_registry_key_trust(&res, r, argv[2], argv[3], &who);
	else if (!strcmp(sub, "trust-approver"))
		rc = tg_registry_key_trust_approver(&res, r, argv[2], argv[3], &who);
	else if (revokes)
		rc = tg_registry_key_revoke_approver(&res, r, argv[2], &who);
	else
		rc = tg_registry_key_show(&res, r);
	tg_registry_free(r);
	if (rc < 0)
		return cli_fail(rc, "key");
	if (cli->json)
		return cli_print_json(res);
	if (revokes) {
		json_t *k;
		size_t i;
		json_array_foreach(json_object_get(res, "keys"), i, k)
			printf("revoked approver %s: %s\n", cli_jline(json_object_get(res, "principal")),
			       cli_jline(k));
		return TG_EXIT_OK;
	}
	if (trusts) {
		printf("trusted %s%s: %s\n", strcmp(sub, "trust") ? "approver " : "",
		       cli_jline(json_object_get(res, "principal")),
		       cli_jline(json_object_get(res, "public_key")));
		return TG_EXIT_OK;
	}
	printf("key: %s%s\n", cli_jline(json_object_get(res, "key")),
	       !strcmp(json_string_value(json_object_get(res, "source")), "config")
		       ? " (config.json signing_key)"
		       : "");
	printf("public key: %s\n", cli_jline(json_object_get(res, "public_key")));
	printf("allowed signers line: %s\n", cli_jline(json_object_get(res, "allowed_signers")));
	return TG_EXIT_OK;
}
