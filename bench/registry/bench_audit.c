/*
 * bench/registry/bench_audit.c HOME N: append N audit entries to the home
 * (tg_registry_audit, each in its own transaction as a refused MCP request
 * writes it), so that run.sh can time `toolgate verify` as the chain grows
 * (it checks every entry's hash and link, linear in the rows). Prints the
 * appends' wall time.
 */
#include "registry/registry.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	const tg_actor who = { "mcp", "bench-audit" };
	tg_registry *r = NULL;
	unsigned long n, i;
	uint64_t t0;

	if (argc != 3 || (n = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: bench_registry_audit HOME N\n");
		return 2;
	}
	if (tg_registry_open(&r, argv[1], 0) < 0) {
		fprintf(stderr, "bench_registry_audit: %s\n", tg_error_last()->message);
		return 3;
	}
	t0 = tg_now_ms();
	for (i = 0; i < n; i++) {
		json_t *d = json_pack("{s:s, s:I}", "budget", "calls", "n", (json_int_t)i);
		int rc = d ? tg_registry_audit(r, &who, "mcp_denied", "bench", d) : -1;
		json_decref(d);
		if (rc < 0) {
			fprintf(stderr, "bench_registry_audit: entry %lu: %s\n", i,
				tg_error_last()->message);
			tg_registry_free(r);
			return 3;
		}
	}
	printf("%lu entries appended in %llu ms\n", n, (unsigned long long)(tg_now_ms() - t0));
	tg_registry_free(r);
	return 0;
}
