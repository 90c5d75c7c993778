/*
 * cli/text.c: every string of agent or tool origin that a command prints
 * goes through cli_line() or cli_block(), which hand it to the shared
 * tg_term_scrub() (common/term.c): controls, C1, ESC and bidirectional
 * controls become visible markers. The results live in a small per-thread
 * ring so a printf can take several of them without freeing each.
 */
#include "cli.h"

#include <string.h>

#define RING 16

static _Thread_local char *ring[RING];
static _Thread_local unsigned next;

static const char *keep(char *s)
{
	unsigned i = next++ % RING;

	free(ring[i]);
	ring[i] = s;
	return s ? s : "?";
}

const char *cli_line(const char *s)
{
	return keep(tg_term_scrub(s, s ? strlen(s) : 0, TG_TERM_LINE));
}

const char *cli_block(const char *s)
{
	return keep(tg_term_scrub(s, s ? strlen(s) : 0, TG_TERM_BLOCK));
}

const char *cli_jline(const json_t *v)
{
	return v && json_is_string(v) ? cli_line(json_string_value(v)) : "?";
}

void cli_print_claims(const json_t *claims, const char *indent)
{
	const json_t *c;
	size_t i;

	json_array_foreach(claims, i, c) {
		const char *pr = json_string_value(json_object_get(c, "principal"));
		const char *st = json_string_value(json_object_get(c, "state"));
		printf("%sclaimed by %s", indent, cli_jline(json_object_get(c, "signer")));
		if (pr && pr[0])
			printf(" (%s)", cli_line(pr));
		printf(": %s, %s: %s\n", cli_jline(json_object_get(c, "decision")),
		       st && !strcmp(st, "claim") ? "not followed" : "refused",
		       cli_jline(json_object_get(c, "why")));
	}
}
