/*
 * cli/cmd_check.c: `toolgate check FILE.c [--format text|json|sarif]
 * [--policy FILE]`: vet one C source file with the analyzer and print the
 * findings. Exit 0 pass, 1 reject, 2 bad input (unreadable file, not a .c
 * file, bad policy), 3 when the analysis itself could not run. The policy is
 * --policy FILE, else <home>/policy.json when it exists, else the default.
 */
#include "cli.h"
#include "analyzer/analyzer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define CHECK_MAX_SOURCE (1024u * 1024u)

/* Read at most max+1 bytes: a larger file is reported by the analyzer as a
 * `limits` finding without being read whole. */
static int read_capped(char **out, size_t *len, const char *path, size_t max)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf;
	size_t n = 0;

	*out = NULL;
	if (fd < 0)
		return tg_error_errno(errno == ENOENT ? TG_ERR_NOTFOUND : TG_ERR_INVALID, errno,
				      "cannot open");
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return tg_error_set(TG_ERR_INVALID, "not a regular file");
	buf = malloc(max + 2);
	if (!buf)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	while (n < max + 1) {
		ssize_t r = read(fd, buf + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return tg_error_errno(TG_ERR_IO, errno, "read");
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

static void print_text(const tg_report *r, const char *file)
{
	size_t i, errors = 0, warnings = 0;
	for (i = 0; i < r->nfindings; i++) {
		const tg_finding *f = &r->findings[i];
		printf("%s:%u:%u: %s: [%s] %s\n", cli_line(file), f->line, f->column,
		       tg_severity_name(f->severity), cli_line(f->rule), cli_line(f->message));
		if (f->hint)
			printf("    hint: %s\n", cli_line(f->hint));
		if (f->severity == TG_SEV_ERROR)
			errors++;
		else if (f->severity == TG_SEV_WARNING)
			warnings++;
	}
	printf("%s: %s (%zu error%s, %zu warning%s)\n", cli_line(file), r->pass ? "pass" : "reject", errors,
	       errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

int cmd_check(tg_cli *cli, int argc, char **argv)
{
	const char *file = NULL, *format = cli->json ? "json" : "text", *policy_flag = NULL;
	_cleanup_free_ char *src = NULL;
	_cleanup_json_ json_t *doc = NULL;
	tg_policy *policy = NULL;
	tg_report *rep = NULL;
	const char *caps[2];
	size_t len = 0, n, ncaps = 0;
	int i, r, status;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--format") == 0 || strcmp(a, "--policy") == 0) {
			if (i + 1 >= argc)
				return cli_usage(cli, "%s needs a value", a);
			if (a[2] == 'f')
				format = argv[++i];
			else
				policy_flag = argv[++i];
		} else if (strcmp(a, "--capability") == 0) {
			/* vet as for a tool granted this capability (widens file access) */
			if (i + 1 >= argc)
				return cli_usage(cli, "%s needs a value", a);
			a = argv[++i];
			if (strcmp(a, "workspace:read") && strcmp(a, "workspace:write"))
				return cli_usage(cli, "--capability must be workspace:read or workspace:write");
			if (ncaps < TG_ARRAY_SIZE(caps))
				caps[ncaps++] = a;
		} else if (strncmp(a, "--format=", 9) == 0) {
			format = a + 9;
		} else if (strncmp(a, "--policy=", 9) == 0) {
			policy_flag = a + 9;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage(cli, "unknown option %.64s", a);
		} else if (file) {
			return cli_usage(cli, "only one FILE.c");
		} else {
			file = a;
		}
	}
	if (!file)
		return cli_usage(cli, "needs FILE.c");
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "sarif"))
		return cli_usage(cli, "--format must be text, json or sarif");
	n = strlen(file);
	if (n < 3 || strcmp(file + n - 2, ".c") != 0)
		return cli_usage(cli, "%.200s: only .c files are accepted", file);
	r = read_capped(&src, &len, file, CHECK_MAX_SOURCE);
	if (r < 0)
		return cli_fail(r == TG_ERR_IO ? TG_ERR_IO : TG_ERR_INVALID, file);
	r = cli_load_policy(cli, &policy, policy_flag);
	if (r < 0)
		return cli_fail(TG_ERR_INVALID, "policy");
	{
		_cleanup_free_ char *sdk = NULL;
		tg_analyze_opts o = { 0 };
		/* the SDK beside the binary; missing, an environment error */
		r = tg_sdk_dir(&sdk);
		if (r < 0) {
			tg_policy_free(policy);
			return cli_fail(r, "check");
		}
		o.sdk_include_dir = sdk;
		o.max_source_bytes = CHECK_MAX_SOURCE;
		o.capabilities = caps;
		o.ncapabilities = ncaps;
		r = tg_analyze(&rep, policy, file, src, len, &o);
	}
	tg_policy_free(policy);
	if (r < 0)
		return cli_fail(r, "check");
	status = rep->pass ? TG_EXIT_OK : TG_EXIT_VERDICT;
	if (strcmp(format, "text") == 0) {
		print_text(rep, file);
	} else {
		r = strcmp(format, "json") == 0 ? tg_report_to_json(&doc, rep)
						: tg_report_to_sarif(&doc, rep, file);
		if (r < 0) {
			tg_report_free(rep);
			return cli_fail(r, "check");
		}
		if (cli_print_json(doc) != TG_EXIT_OK)
			status = TG_EXIT_ENV;
	}
	tg_report_free(rep);
	return status;
}
