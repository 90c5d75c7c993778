/*
 * registry/create/manifest.c: the manifest of docs/CONTRACTS.md, validated precisely
 * (every message names the field, e.g. "tests[2].args.n: must be an
 * integer") before anything else runs, and the CLI's way of reading one
 * from disk: a manifest file or a folder holding tool.json, whose "source"
 * is a relative path resolved inside the manifest's folder.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include "registry/create/create.h"

static const char *const reserved_names[] = { "create_tool", "rollback_tool", "tool_history",
					      "list_tool_versions", "run_program", NULL };

int reg_caps_from_json(const json_t *caps, int *read, int *write)
{
	size_t i;
	json_t *c;

	*read = *write = 0;
	if (!caps || json_is_null(caps))
		return 0;
	json_array_foreach(caps, i, c) {
		const char *s = json_string_value(c);
		if (s && strcmp(s, "workspace:read") == 0)
			*read = 1;
		else if (s && strcmp(s, "workspace:write") == 0)
			*write = 1;
	}
	return 0;
}

/* The first character in s that could deceive a reviewer (0 = none):
 * C0 controls and DEL other than those allowed (a lone carriage return can
 * overwrite what a terminal shows of a line, so "\r" is only allowed before
 * "\n"), C1 controls U+0080..U+009F (0x9b is a one-byte CSI to a terminal
 * that takes C1), and the Unicode bidirectional controls that reorder what is shown
 * ("Trojan Source", CVE-2021-42574): U+202A..U+202E, U+2066..U+2069,
 * U+200E, U+200F, U+061C. Returns the byte or code point; *line is its line. */
static int control_char(const char *s, size_t len, const char *allowed, size_t *line)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;

	*line = 1;
	for (i = 0; i < len; i++) {
		unsigned char c = u[i];
		if (c == '\n')
			(*line)++;
		if (c == '\r' && strchr(allowed, '\r') && i + 1 < len && u[i + 1] == '\n')
			continue;
		if (c == '\r' || ((c < 0x20 || c == 0x7f) && !strchr(allowed, c)))
			return c ? c : 0x100;
		if (c == 0xe2 && i + 2 < len && u[i + 1] == 0x80 &&
		    ((u[i + 2] >= 0xaa && u[i + 2] <= 0xae) || u[i + 2] == 0x8e || u[i + 2] == 0x8f))
			return 0x2000 + (u[i + 2] & 0x3f);
		if (c == 0xe2 && i + 2 < len && u[i + 1] == 0x81 && u[i + 2] >= 0xa6 && u[i + 2] <= 0xa9)
			return 0x2040 + (u[i + 2] & 0x3f);
		if (c == 0xd8 && i + 1 < len && u[i + 1] == 0x9c)
			return 0x61c;
		if (c == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
			return u[i + 1];
	}
	return 0;
}

static int check_capabilities(const tg_config *cfg, const json_t *caps)
{
	size_t i, k;
	json_t *c;

	if (!caps)
		return 0;
	if (!json_is_array(caps))
		return tg_error_set(TG_ERR_INVALID, "capabilities: must be an array");
	json_array_foreach(caps, i, c) {
		const char *s = json_string_value(c);
		if (!s)
			return tg_error_set(TG_ERR_INVALID, "capabilities[%zu]: must be a string", i);
		if (strcmp(s, "workspace:read") != 0 && strcmp(s, "workspace:write") != 0 &&
		    strncmp(s, "tools:", 6) != 0 && strncmp(s, "host:", 5) != 0)
			return tg_error_set(TG_ERR_INVALID, "capabilities[%zu]: unknown capability "
							    "(known: workspace:read, workspace:write, "
							    "tools:NAME, host:NAME)", i);
		for (k = 0; k < i; k++) {
			if (json_equal(json_array_get(caps, k), c))
				return tg_error_set(TG_ERR_INVALID, "capabilities[%zu]: duplicate", i);
		}
		if (strncmp(s, "workspace:", 10) != 0)
			continue; /* tools:/host: are checked against "calls" (bridge_manifest.c) */
		if (!cfg->workspace)
			return tg_error_set(TG_ERR_INVALID, "capabilities[%zu]: %s needs \"workspace\" "
							    "set in the home's config.json, which only a "
							    "person (the operator) can do: \"workspace\": "
							    "\"/absolute/folder\" in <home>/config.json, "
							    "then restart toolgate serve; ask them, or "
							    "write the tool without it", i, s);
	}
	return 0;
}

static int check_tests(const tg_schema *schema, const tg_schema *oschema, const json_t *tests)
{
	static const char *const keys[] = { "name", "args", "expect", "expect_error",
					    "host_results", "tool_results", "files", NULL };
	size_t i, k, line, runs = 0, refused = 0;
	json_t *t;
	int rc, c;

	if (!tests)
		return tg_error_set(TG_ERR_INVALID, "tests: is required (1 to %d test cases)",
				    REG_MAX_TESTS);
	if (!json_is_array(tests))
		return tg_error_set(TG_ERR_INVALID, "tests: must be an array");
	if (json_array_size(tests) < 1)
		return tg_error_set(TG_ERR_INVALID, "tests: needs at least one test case");
	if (json_array_size(tests) > REG_MAX_TESTS)
		return tg_error_set(TG_ERR_LIMIT, "tests: %zu test cases, at most %d allowed",
				    json_array_size(tests), REG_MAX_TESTS);
	json_array_foreach(tests, i, t) {
		const char *name;
		json_t *args, *ee;

		if (!json_is_object(t))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu]: must be an object", i);
		rc = tg_json_check_keys(t, keys, "test");
		if (rc < 0)
			return tg_error_prefix("tests[%zu]", i);
		name = json_string_value(json_object_get(t, "name"));
		if (!name)
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].name: must be a string", i);
		if (!name[0] || strlen(name) > REG_MAX_TEST_NAME)
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].name: must be 1 to %d bytes", i,
					    REG_MAX_TEST_NAME);
		if ((c = control_char(name, strlen(name), "", &line)) != 0)
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].name: must not hold control "
							    "characters, C1 controls or bidirectional "
							    "controls (found U+%04X)", i, (unsigned)c);
		for (k = 0; k < i; k++) {
			const char *other = json_string_value(json_object_get(json_array_get(tests, k),
									    "name"));
			if (other && strcmp(other, name) == 0)
				return tg_error_set(TG_ERR_INVALID, "tests[%zu].name: duplicate of "
								    "tests[%zu].name", i, k);
		}
		if (json_object_get(t, "host_results") &&
		    !json_is_object(json_object_get(t, "host_results")))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].host_results: must be an object "
							    "of host tool name -> result", i);
		if (json_object_get(t, "tool_results") &&
		    !json_is_object(json_object_get(t, "tool_results")))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].tool_results: must be an object "
							    "of tool name -> result", i);
		args = json_object_get(t, "args");
		if (!args)
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].args: is required", i);
		if (!json_is_object(args))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].args: must be an object", i);
		ee = json_object_get(t, "expect_error");
		if (ee && !json_is_true(ee))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].expect_error: must be true "
							    "(or left out)", i);
		if (!ee && !json_object_get(t, "expect"))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu]: needs \"expect\" or "
							    "\"expect_error\": true", i);
		if (ee && json_object_get(t, "expect"))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu]: has both \"expect\" and "
							    "\"expect_error\"", i);
		if (!ee) {
			/* a test may give the answers to what the tool asks */
			_cleanup_json_ json_t *bare = tg_input_args_bare(args);
			if (!bare)
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
			rc = tg_schema_run(schema, bare, "args");
			if (rc < 0)
				return tg_error_prefix("tests[%zu] (arguments do not match input_schema)",
						       i);
			if (oschema && tg_schema_run(oschema, json_object_get(t, "expect"),
						     "expect") < 0)
				return tg_error_prefix("tests[%zu] (expect does not match output_schema)",
						       i);
			runs++;
		} else if (tg_schema_run(schema, args, "args") < 0) {
			tg_error_clear();
			refused++;
		}
	}
	/* a version must be tested to be active: at least one test must run the
	 * tool to completion and compare its result */
	if (runs == 0)
		return tg_error_set(TG_ERR_INVALID, "tests: no test runs the tool and compares its "
						    "result: all %zu are \"expect_error\" (%zu refused "
						    "by input_schema before the tool runs); add a test "
						    "with \"expect\"", json_array_size(tests), refused);
	return 0;
}

/* Every problem of a submission at once (issue 29): each independent part
 * of the manifest is checked and its first problem kept; one problem is
 * reported as it is, several as "N problems in the manifest: A; B; ..."
 * (each cut at PROBLEM_CAP bytes, the whole at the error's 1 KiB). Only
 * bad input is collected; any other error ends the check at once. */
#define PROBLEM_CAP 300
typedef struct problems {
	int code, n;
	char one[1024];
	char all[1024];
} problems;

static int note(problems *p, int rc)
{
	const char *msg = tg_error_last()->message;
	size_t len;

	if (rc >= 0)
		return 0;
	if (rc != TG_ERR_INVALID && rc != TG_ERR_LIMIT)
		return rc;
	if (p->n++ == 0) {
		p->code = rc;
		snprintf(p->one, sizeof(p->one), "%s", msg);
	}
	len = strlen(p->all);
	snprintf(p->all + len, sizeof(p->all) - len, "%s%.*s%s", len ? "; " : "", PROBLEM_CAP, msg,
		 strlen(msg) > PROBLEM_CAP ? "..." : "");
	tg_error_clear();
	return 0;
}

static int reported(const problems *p)
{
	if (p->n == 0)
		return 0;
	if (p->n == 1)
		return tg_error_set(p->code, "%s", p->one);
	return tg_error_set(p->code, "%d problems in the manifest: %s", p->n, p->all);
}

static int check_description(const json_t *m)
{
	const char *desc = NULL;
	size_t line;
	int rc, c;

	if ((rc = tg_json_get_string(&desc, m, "description", 1)) < 0)
		return rc;
	if (!desc[0] || strlen(desc) > REG_MAX_DESCRIPTION)
		return tg_error_set(TG_ERR_INVALID, "description: must be 1 to %d bytes",
				    REG_MAX_DESCRIPTION);
	if ((c = control_char(desc, strlen(desc), "\n\t", &line)) != 0)
		return tg_error_set(TG_ERR_INVALID, "description: must not hold control characters "
						    "(other than newline and tab), C1 controls or "
						    "bidirectional controls (found U+%04X on line %zu)",
				    (unsigned)c, line);
	return 0;
}

static int check_name(const json_t *m, const char **out)
{
	const char *name = NULL;
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = tg_json_get_string(&name, m, "name", 1)) < 0)
		return rc;
	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "name: must match ^[a-z][a-z0-9_]{0,63}$");
	for (i = 0; reserved_names[i]; i++) {
		if (strcmp(name, reserved_names[i]) == 0)
			return tg_error_set(TG_ERR_INVALID, "name: %s is reserved for a toolgate "
							    "meta-tool", name);
	}
	*out = name;
	return 0;
}

int tg_manifest_validate(const tg_registry *r, const json_t *m, const char *source,
			 size_t source_len)
{
	static const char *const keys[] = { "name", "description", "input_schema", "output_schema",
					    "source", "tests", "limits", "capabilities", "calls",
					    NULL };
	const char *name = NULL;
	json_t *schema = NULL, *oschema = NULL, *limits = NULL;
	tg_schema *cin = NULL, *cout = NULL;
	unsigned sflags = reg_schema_flags(&r->cfg, 1);
	problems p = { 0 };
	int rc, ocomp = 0;

	if (!json_is_object(m))
		return tg_error_set(TG_ERR_INVALID, "manifest: must be a JSON object");
	if ((rc = note(&p, tg_json_check_keys(m, keys, "manifest"))) < 0 ||
	    (rc = note(&p, check_name(m, &name))) < 0 ||
	    (rc = note(&p, check_description(m))) < 0)
		return rc;
	/* the schemas are checked with the home's format setting (config.c);
	 * the tests' arguments and expectations are validated against them */
	rc = tg_json_get_object(&schema, m, "input_schema", 1);
	if (rc == 0)
		rc = tg_schema_compile(&cin, schema, "input_schema", TG_SCHEMA_TOP_OBJECT | sflags);
	if ((rc = note(&p, rc)) < 0)
		goto out;
	rc = tg_json_get_object(&oschema, m, "output_schema", 0);
	if (rc == 0 && oschema)
		rc = tg_schema_compile(&cout, oschema, "output_schema", TG_SCHEMA_TOP_TYPED | sflags);
	ocomp = rc == 0;
	if ((rc = note(&p, rc)) < 0)
		goto out;
	rc = tg_json_get_object(&limits, m, "limits", 0);
	if (rc == 0)
		rc = reg_limits_parse(NULL, &r->cfg, limits, "limits");
	if ((rc = note(&p, rc)) < 0 ||
	    (rc = note(&p, check_capabilities(&r->cfg, json_object_get(m, "capabilities")))) < 0 ||
	    (rc = note(&p, reg_bridge_check_calls(r, m, name))) < 0)
		goto out;
	/* the tests are checked against the schemas: only once both compiled */
	if (cin && ocomp && (rc = note(&p, check_tests(cin, cout, json_object_get(m, "tests")))) < 0)
		goto out;
	if ((rc = note(&p, reg_test_files_check(m))) < 0 ||
	    (rc = note(&p, reg_check_source(source, source_len))) < 0)
		goto out;
	rc = reported(&p);
out:
	tg_schema_free(cin);
	tg_schema_free(cout);
	return rc;
}

int reg_check_source(const char *source, size_t source_len)
{
	size_t line;
	int c;

	if (!source || source_len == 0)
		return tg_error_set(TG_ERR_INVALID, "source: is empty");
	if (source_len > REG_MAX_SOURCE)
		return tg_error_set(TG_ERR_LIMIT, "source: %zu bytes exceeds the limit of %u",
				    source_len, REG_MAX_SOURCE);
	if (tg_utf8_valid(source, source_len) != 0)
		return tg_error_set(TG_ERR_INVALID, "source: is not valid UTF-8 text (or holds a NUL)");
	if ((c = control_char(source, source_len, "\t\n\r\f\v", &line)) != 0)
		return tg_error_set(TG_ERR_INVALID, "source: line %zu holds the control character "
						    "%s%04X (control characters other than tab, newline, "
						    "CR LF and form feeds, and bidirectional controls "
						    "are refused)", line, c >= 0x80 ? "U+" : "0x", (unsigned)c);
	return 0;
}

/* Resolve rel inside dir: relative, no "..", and (after symlinks) still
 * inside dir. */
static int resolve_source(char **out, const char *dir, const char *rel)
{
	_cleanup_free_ char *joined = NULL, *real_dir = NULL, *real_src = NULL;
	const char *p;
	size_t n;

	*out = NULL;
	if (!rel[0])
		return tg_error_set(TG_ERR_INVALID, "source: is empty");
	if (rel[0] == '/')
		return tg_error_set(TG_ERR_INVALID, "source: must be a path relative to the manifest");
	if (strlen(rel) > 1024)
		return tg_error_set(TG_ERR_INVALID, "source: path too long");
	for (p = rel; *p;) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return tg_error_set(TG_ERR_INVALID, "source: must not leave the manifest's "
							    "folder (\"..\")");
		p += n;
		while (*p == '/')
			p++;
	}
	joined = tg_path_join(dir, rel);
	real_dir = realpath(dir, NULL);
	if (!joined || !real_dir)
		return tg_error_errno(TG_ERR_IO, errno, "%s", dir);
	real_src = realpath(joined, NULL);
	if (!real_src)
		return tg_error_errno(TG_ERR_INVALID, errno, "source: %s", rel);
	n = strlen(real_dir);
	if (strncmp(real_src, real_dir, n) != 0 || (real_src[n] != '/' && strcmp(real_dir, "/")))
		return tg_error_set(TG_ERR_INVALID, "source: resolves outside the manifest's folder");
	*out = TG_TAKE_PTR(real_src);
	return 0;
}

int tg_manifest_load(json_t **out, char **out_source, size_t *out_len, const char *path)
{
	_cleanup_free_ char *mpath = NULL, *dir = NULL, *src_path = NULL;
	_cleanup_json_ json_t *m = NULL;
	const char *rel = NULL;
	char *slash;
	struct stat st;
	int rc;

	*out = NULL;
	*out_source = NULL;
	*out_len = 0;
	if (stat(path, &st) != 0)
		return tg_error_errno(TG_ERR_INVALID, errno, "%s", path);
	if (S_ISDIR(st.st_mode)) {
		mpath = tg_path_join(path, "tool.json");
		dir = strdup(path);
	} else {
		mpath = strdup(path);
		dir = strdup(path);
		if (dir) {
			slash = strrchr(dir, '/');
			if (!slash)
				strcpy(dir, ".");
			else if (slash == dir)
				dir[1] = '\0';
			else
				*slash = '\0';
		}
	}
	if (!mpath || !dir)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = tg_json_parse_file(&m, mpath, NULL);
	if (rc < 0)
		return rc;
	if (!json_is_object(m))
		return tg_error_set(TG_ERR_INVALID, "%s: the manifest must be a JSON object", mpath);
	rc = tg_json_get_string(&rel, m, "source", 1);
	if (rc < 0)
		return rc;
	rc = resolve_source(&src_path, dir, rel);
	if (rc < 0)
		return rc;
	if (stat(src_path, &st) != 0 || !S_ISREG(st.st_mode))
		return tg_error_set(TG_ERR_INVALID, "source: %s is not a regular file", rel);
	rc = tg_file_read(out_source, out_len, src_path, REG_MAX_SOURCE);
	if (rc < 0) {
		if (rc == TG_ERR_LIMIT)
			return tg_error_set(TG_ERR_LIMIT, "source: %s is larger than %u bytes", rel,
					    REG_MAX_SOURCE);
		return tg_error_prefix("source");
	}
	*out = TG_TAKE_PTR(m);
	return 0;
}
