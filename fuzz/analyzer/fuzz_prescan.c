/*
 * fuzz/analyzer/fuzz_prescan.c: libFuzzer target for the pre-scan, the
 * hand-written lexer that sees every submitted byte first. Any input must
 * give a bounded list of findings with valid rule ids and positions inside
 * the input, and either a blocking verdict or a clean copy for the parser
 * of the same length with the line breaks where the input has them.
 */
#include "analyzer/internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tg_policy *p;
	tg_flist l = { 0 };
	tg_prescan st;
	size_t i, lines = 1;

	if (!p && tg_policy_default(&p) < 0)
		abort();
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	tg_prescan_run(&st, &l, p, (const char *)data, size, 64 * 1024);
	if (l.n > TG_MAX_FINDINGS || (!st.blocking && !st.clean))
		abort();
	for (i = 0; st.clean && i < size; i++)
		if ((st.clean[i] == '\n') != (data[i] == '\n'))
			abort();
	tg_prescan_free(&st);
	for (i = 0; i < l.n; i++)
		if (tg_rule_index(l.v[i].rule) < 0 || l.v[i].line > lines || !l.v[i].message)
			abort();
	tg_flist_free(&l);
	return 0;
}
