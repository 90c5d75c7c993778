/*
 * tests/schema/diff_runner.c: validates instances against schemas with
 * registry/schema/ for the differential test against ajv
 * (tests/mcp/schema_diff.test.mjs). Usage:
 *   schema_diff_runner FILE
 * FILE holds [{"schema": S, "instances": [I, ...]}, ...]. Each schema is
 * compiled with tg_schema_compile (no top-level rule, format an annotation,
 * as the suite runner does) and every instance validated with
 * tg_schema_run. Prints one JSON array with an entry per case: an array of
 * booleans (valid or not), or {"error": MESSAGE} when the schema does not
 * compile. A validation that hits a limit prints "limit" for that instance.
 * Exit 0 when the file was read, 2 when not.
 */
#include <stdio.h>
#include <stdlib.h>

#include "registry/schema/schema.h"

int main(int argc, char **argv)
{
	json_error_t je;
	json_t *cases, *c, *out, *row, *inst;
	size_t i, k;

	if (argc != 2) {
		fprintf(stderr, "usage: schema_diff_runner FILE\n");
		return 2;
	}
	cases = json_load_file(argv[1], JSON_DECODE_ANY, &je);
	if (!json_is_array(cases)) {
		fprintf(stderr, "schema_diff_runner: %s: %s\n", argv[1], je.text);
		return 2;
	}
	out = json_array();
	json_array_foreach(cases, i, c) {
		tg_schema *s = NULL;
		if (tg_schema_compile(&s, json_object_get(c, "schema"), "schema", 0) < 0) {
			json_array_append_new(out, json_pack("{s:s}", "error", tg_error_last()->message));
			tg_error_clear();
			continue;
		}
		row = json_array();
		json_array_foreach(json_object_get(c, "instances"), k, inst) {
			int r = tg_schema_run(s, inst, "data");
			json_array_append_new(row, r == 0 ? json_true()
						 : r == TG_ERR_INVALID ? json_false()
								       : json_string("limit"));
			tg_error_clear();
		}
		json_array_append_new(out, row);
		tg_schema_free(s);
	}
	json_dumpf(out, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(out);
	json_decref(cases);
	return 0;
}
