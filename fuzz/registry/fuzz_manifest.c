/*
 * fuzz/registry/fuzz_manifest.c: libFuzzer target for the manifest of a
 * submission, the first thing of an agent's create_tool that the registry
 * reads. The input is the manifest's JSON text, optionally followed by a NUL
 * byte and the tool's source. The target parses it with the same limits as
 * the CLI and the MCP server (tg_json_parse), validates it with
 * tg_manifest_validate under the default registry configuration and checks:
 *  - the answer is 0, TG_ERR_INVALID or TG_ERR_LIMIT, never anything else;
 *  - a refusal carries a message; with TG_FUZZ_STRICT_MESSAGES=1 in the
 *    environment it must also be valid UTF-8 and free of control characters
 *    (the CLI prints it as one line "toolgate: what: why", MCP puts it in a
 *    JSON string). That check is off by default because it fails on two
 *    reported bugs the fuzzer would otherwise stop on at once: an unknown key
 *    is echoed raw (corpus ctl_key.json, tests/badinput/escape.sh), and a
 *    JSON parse error quotes the input cut inside a UTF-8 sequence (corpus
 *    escape_utf8.json: a backslash before a multi-byte character);
 *  - validation is deterministic, and an accepted manifest stays accepted
 *    after a dump and re-parse (what the registry stores is what it checked).
 * tests/fuzz_replay replays fuzz/registry/corpus through the same function in
 * the normal build.
 */
#include "registry/replica/replica.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char default_source[] = "#include <toolgate/tool.h>\nint main(void) { return 0; }\n";

static int strict_messages = -1;

static void check_message(int rc)
{
	const tg_error *e = tg_error_last();
	size_t n = strlen(e->message), i;

	if (rc != TG_ERR_INVALID && rc != TG_ERR_LIMIT)
		abort();
	if (e->code != rc || n == 0)
		abort();
	if (strict_messages < 0) {
		const char *v = getenv("TG_FUZZ_STRICT_MESSAGES");
		strict_messages = v && strcmp(v, "1") == 0;
	}
	if (strict_messages) {
		if (tg_utf8_valid(e->message, n) != 0)
			abort();
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)e->message[i];
			if (c < 0x20 || c == 0x7f)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tg_registry reg;
	static int ready;
	const char *text = (const char *)data, *src = default_source;
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = size, slen = sizeof(default_source) - 1;
	tg_json_limits lim = { 1u << 20, 64 };
	json_t *m = NULL, *again = NULL;
	char *dump;
	int rc, rc2;

	if (!ready) {
		/* the defaults: config.json absent from a home that does not exist */
		if (reg_config_load(&reg.cfg, "/nonexistent-toolgate-fuzz-home") < 0)
			abort();
		ready = 1;
	}
	if (nul) {
		tlen = (size_t)(nul - data);
		src = (const char *)nul + 1;
		slen = size - tlen - 1;
	}
	if (tg_json_parse(&m, text, tlen, &lim) < 0) {
		check_message(tg_error_last()->code);
		if (m)
			abort();
		return 0;
	}
	rc = tg_manifest_validate(&reg, m, src, slen);
	if (rc < 0)
		check_message(rc);
	else if (rc != 0)
		abort();
	rc2 = tg_manifest_validate(&reg, m, src, slen);
	if (rc2 != rc)
		abort();
	if (rc == 0) {
		dump = tg_json_dump(m);
		if (!dump || tg_json_parse(&again, dump, strlen(dump), &lim) < 0)
			abort();
		if (tg_manifest_validate(&reg, again, src, slen) != 0)
			abort();
		free(dump);
		json_decref(again);
	}
	json_decref(m);
	return 0;
}
