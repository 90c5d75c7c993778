/*
 * fuzz/analyzer/fuzz_policy.c: libFuzzer target for the JSON policy loader.
 * Any input either is refused with a negative code and a message, or gives a
 * policy whose tg_policy_to_json document loads again to the same allowlist
 * decisions (round trip). tests/analyzer replays the seed corpus through the
 * same function in the normal build.
 */
#include "analyzer/internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tg_policy *p = NULL, *q = NULL;
	json_t *j = NULL;
	char *dump;
	size_t i;
	int r = tg_policy_from_json(&p, (const char *)data, size);

	if (r < 0) {
		if (p || !tg_error_last()->message[0])
			abort();
		return 0;
	}
	if (!p || tg_policy_to_json(&j, p) < 0)
		abort();
	dump = tg_json_dump(j);
	if (!dump || tg_policy_from_json(&q, dump, strlen(dump)) < 0)
		abort();
	if (p->nallow != q->nallow)
		abort();
	for (i = 0; i < p->nallow; i++)
		if (strcmp(p->allow[i], q->allow[i]) != 0 || !tg_policy_allows(q, p->allow[i]))
			abort();
	for (i = 0; i < tg_nrules; i++)
		if (p->severity[i] != q->severity[i])
			abort();
	free(dump);
	json_decref(j);
	tg_policy_free(q);
	tg_policy_free(p);
	return 0;
}
