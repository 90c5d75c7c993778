/*
 * tests/schema/suite_runner.c: runs the required tests of the official
 * JSON-Schema-Test-Suite for draft 2020-12 (tests/schema/suite/, vendored
 * with its LICENSE) against registry/schema/. Usage:
 *   schema_suite_runner DIR UNSUPPORTED_LIST
 * Every *.json of DIR is a list of groups {description, schema, tests}; each
 * schema is compiled with tg_schema_compile (no top-level rule: the suite's
 * schemas are not tool schemas) and every test's data validated. The list
 * names the cases toolgate refuses on purpose, one a line:
 *   FILE | GROUP DESCRIPTION | TEST DESCRIPTION or * | REASON
 * The run fails if a test outside the list fails, or if a listed case
 * passes (the list must stay true). It prints passed / total.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "registry/schema/schema.h"

typedef struct listed {
	char *file, *group, *test;
	int used;
} listed;

static listed *list;
static size_t nlist;

static char *trim(char *s)
{
	size_t n;
	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

static int load_list(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *parts[4], *p = line;
		int k;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		for (k = 0; k < 4 && p; k++) {
			parts[k] = p;
			p = k < 3 ? strstr(p, " | ") : NULL;
			if (p) {
				*p = '\0';
				p += 3;
			}
		}
		if (k < 4 || !*trim(parts[3])) {
			fprintf(stderr, "%s: malformed line (FILE | GROUP | TEST | REASON): %s\n", path, line);
			fclose(f);
			return -1;
		}
		list = realloc(list, (nlist + 1) * sizeof(*list));
		list[nlist++] = (listed){strdup(trim(parts[0])), strdup(trim(parts[1])),
					 strdup(trim(parts[2])), 0};
	}
	fclose(f);
	return 0;
}

static listed *find_listed(const char *file, const char *group, const char *test)
{
	for (size_t i = 0; i < nlist; i++)
		if (!strcmp(list[i].file, file) && !strcmp(list[i].group, group) &&
		    (!strcmp(list[i].test, "*") || !strcmp(list[i].test, test)))
			return &list[i];
	return NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t total, passed, unsupported, failures;

static void run_group(const char *file, const json_t *g)
{
	const char *gd = json_string_value(json_object_get(g, "description"));
	const json_t *tests = json_object_get(g, "tests");
	tg_schema *s = NULL;
	char why[1100] = "";
	if (tg_schema_compile(&s, json_object_get(g, "schema"), "schema", 0) < 0)
		snprintf(why, sizeof(why), "schema refused: %s", tg_error_last()->message);
	for (size_t i = 0; i < json_array_size(tests); i++) {
		const json_t *t = json_array_get(tests, i);
		const char *td = json_string_value(json_object_get(t, "description"));
		int want = json_is_true(json_object_get(t, "valid")), ok, r = -1;
		listed *l = find_listed(file, gd, td);
		total++;
		if (s) {
			r = tg_schema_run(s, json_object_get(t, "data"), "data");
			if (r < 0 && r != TG_ERR_INVALID)
				snprintf(why, sizeof(why), "error %d: %s", r, tg_error_last()->message);
		}
		ok = s && (r == 0 || r == TG_ERR_INVALID) && (r == 0) == want;
		if (l) {
			l->used = 1;
			if (ok) {
				failures++;
				printf("STALE %s | %s | %s: listed as unsupported but passes\n", file, gd, td);
			} else {
				unsupported++;
			}
		} else if (ok) {
			passed++;
		} else {
			failures++;
			printf("FAIL %s | %s | %s: want %s; %s\n", file, gd, td, want ? "valid" : "invalid",
			       s ? (r == 0 ? "accepted" : tg_error_last()->message) : why);
		}
	}
	tg_schema_free(s);
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	if (argc != 3 || load_list(argv[2]) < 0 || !(d = opendir(argv[1]))) {
		fprintf(stderr, "usage: schema_suite_runner DIR UNSUPPORTED_LIST (both readable)\n");
		return 2;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		json_error_t err;
		json_t *groups;
		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
		if (!(groups = json_load_file(path, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err))) {
			printf("FAIL %s: does not parse: %s\n", names[i], err.text);
			failures++;
			continue;
		}
		for (size_t k = 0; k < json_array_size(groups); k++)
			run_group(names[i], json_array_get(groups, k));
		json_decref(groups);
		free(names[i]);
	}
	free(names);
	for (size_t i = 0; i < nlist; i++)
		if (!list[i].used) {
			printf("STALE %s | %s | %s: listed but not in the suite\n", list[i].file,
			       list[i].group, list[i].test);
			failures++;
		}
	printf("JSON-Schema-Test-Suite draft2020-12 (required): %zu / %zu passed, %zu unsupported "
	       "(listed), %zu failures\n", passed, total, unsupported, failures);
	return failures ? 1 : 0;
}
