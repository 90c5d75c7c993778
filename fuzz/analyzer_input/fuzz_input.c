/*
 * fuzz/analyzer_input/fuzz_input.c: libFuzzer target for the analyzer's
 * handling of raw input, in-process (never the forked libclang path):
 *  - the first byte even: the rest is a tool's source. It goes through the
 *    pre-scan (tg_prescan_run: size, NUL, trigraphs, includes, pragmas, line
 *    markers) with a small size cap chosen by the first byte, and the
 *    findings through tg_flist_to_report and tg_report_to_json and SARIF,
 *    i.e. all the way to what the user and the agent read. Checked: a
 *    bounded list with valid rules and lines, either blocking or a clean
 *    copy for the parser with the input's line breaks, an over-size source always refused, the same answer twice,
 *    and the report's JSON and SARIF always produced (a finding quoting the
 *    source's bytes must not break the report);
 *  - the first byte odd: the rest is what the libclang child writes back
 *    over its pipe (tg_flist_deserialize). The child parses the attacker's
 *    code, so its answer is untrusted too: anything is either refused with
 *    TG_ERR_INTERNAL or gives a list that serializes and reads back equal.
 * The analyzer engineer's fuzz/analyzer/fuzz_prescan.c covers the pre-scan
 * alone at the default size cap; this target adds the report path, the size
 * cap and the pipe. tests/fuzz_replay replays fuzz/analyzer_input/corpus.
 */
#include "analyzer/internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_list(const tg_flist *l, size_t lines)
{
	size_t i;

	if (l->n > TG_MAX_FINDINGS)
		abort();
	for (i = 0; i < l->n; i++) {
		if (tg_rule_index(l->v[i].rule) < 0 || !l->v[i].message)
			abort();
		if (lines && l->v[i].line > lines)
			abort();
	}
}

static void check_report(tg_flist *l)
{
	tg_report *rep = NULL;
	json_t *j = NULL, *sarif = NULL;

	if (tg_flist_to_report(&rep, l, 0) < 0 || !rep)
		abort();
	if (tg_report_to_json(&j, rep) < 0 || !j)
		abort();
	if (tg_report_to_sarif(&sarif, rep, "tool.c") < 0 || !sarif)
		abort();
	json_decref(sarif);
	json_decref(j);
	tg_report_free(rep);
}

static int same_lists(const tg_flist *a, const tg_flist *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const tg_finding *x = &a->v[i], *y = &b->v[i];
		if (strcmp(x->rule, y->rule) || x->line != y->line || x->column != y->column ||
		    strcmp(x->message, y->message) || !x->symbol != !y->symbol ||
		    (x->symbol && strcmp(x->symbol, y->symbol)))
			return 0;
	}
	return 1;
}

static void source_mode(const tg_policy *p, const char *src, size_t len, size_t max)
{
	tg_flist l = { 0 }, l2 = { 0 };
	tg_prescan st, st2;
	size_t i, lines = 1;

	for (i = 0; i < len; i++)
		lines += src[i] == '\n';
	tg_prescan_run(&st, &l, p, src, len, max);
	if (l.oom)
		abort();
	check_list(&l, lines);
	if (!st.blocking && !st.clean)
		abort();
	for (i = 0; st.clean && i < len; i++)
		if ((st.clean[i] == '\n') != (src[i] == '\n'))
			abort();
	if (len > max && (!st.blocking || l.n == 0))
		abort();
	tg_prescan_run(&st2, &l2, p, src, len, max);
	if (st2.blocking != st.blocking || !same_lists(&l, &l2) ||
	    !st.clean != !st2.clean || (st.clean && memcmp(st.clean, st2.clean, len) != 0))
		abort();
	tg_prescan_free(&st);
	tg_prescan_free(&st2);
	tg_flist_free(&l2);
	check_report(&l);
	tg_flist_free(&l);
}

static void pipe_mode(const tg_policy *p, const char *data, size_t len)
{
	tg_flist l = { 0 }, l2 = { 0 };
	char *wire = NULL;
	size_t wlen = 0;

	if (tg_flist_deserialize(&l, p, data, len) < 0) {
		if (tg_error_last()->code != TG_ERR_INTERNAL)
			abort();
		tg_flist_free(&l);
		return;
	}
	check_list(&l, 0);
	if (tg_flist_serialize(&wire, &wlen, &l) < 0)
		abort();
	if (tg_flist_deserialize(&l2, p, wire, wlen) < 0 || !same_lists(&l, &l2))
		abort();
	free(wire);
	tg_flist_free(&l2);
	check_report(&l);
	tg_flist_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tg_policy *p;
	static const size_t caps[] = { 64 * 1024, 256, 4096, 16 };

	if (!p && tg_policy_default(&p) < 0)
		abort();
	if (size < 1)
		return 0;
	if (data[0] & 1)
		pipe_mode(p, (const char *)data + 1, size - 1);
	else
		source_mode(p, (const char *)data + 1, size - 1, caps[(data[0] >> 1) & 3]);
	return 0;
}
