/*
 * registry/exec/bridge_host.c: host tools (docs/BRIDGE.md, docs/CONFIG.md). The
 * operator declares them in config.json "host_tools": a name, a
 * description, an input schema, and either the argv of a trusted program
 * (run outside the tool sandbox, arguments on stdin, one JSON value
 * expected on stdout, with a timeout and an output cap) or a fixed
 * "result" (for tests and dry runs), plus an approval policy: "never" (runs
 * without asking), "always" (each call waits for a person), "match" (the
 * call waits for a person when an argument named in "match" matches one of
 * its fnmatch patterns). reg_host_call() answers one bridged host call:
 * schema, then the test fixtures of a submission's tests (an unexpected
 * call fails the test), then the policy (call_approval.c), then the run.
 */

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include "registry/exec/exec.h"

#define HOST_DEF_TIMEOUT_MS 5000u
#define HOST_DEF_OUTPUT_KB 64u
/* The text a pattern is matched against: a string as is, anything else as
 * compact JSON; an absent argument as "". */
static char *arg_text(const json_t *v)
{
	if (!v)
		return strdup("");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return tg_json_dump(v);
}

static int needs_person(const reg_bridge *b, const json_t *ht, const json_t *args)
{
	const char *ap = json_string_value(json_object_get(ht, "approval")), *key;
	json_t *pats, *p;
	size_t k;

	if (b->oneoff)
		return 1; /* nobody reviewed the program: every host call asks */
	if (strcmp(ap, "never") == 0)
		return 0;
	if (strcmp(ap, "always") == 0)
		return 1;
	json_object_foreach(json_object_get(ht, "match"), key, pats) {
		_cleanup_free_ char *text = arg_text(json_object_get(args, key));
		if (!text)
			return 1;
		json_array_foreach(pats, k, p)
			if (fnmatch(json_string_value(p), text, 0) == 0)
				return 1;
	}
	return 0;
}

/* close and forget (tg_closep leaves the number in place) */
static void close_fd(int *fd)
{
	tg_closep(fd);
	*fd = -1;
}

static json_t *err_reply(json_int_t id, const char *code, const char *msg)
{
	return json_pack("{s:I, s:{s:s, s:s}}", "id", id, "error", "code", code, "message", msg);
}

/* Run argv with in on stdin, outside the sandbox: a clean environment, its
 * own process group, killed at timeout_ms or when stdout passes cap bytes.
 * 0 with *out (stdout), *err (stderr, capped), *status; <0 when it could not
 * start. */
static int run_host(char **out, size_t *out_len, char **err, int *status, int *killed,
		    const json_t *argvj, const char *in, uint32_t timeout_ms, size_t cap,
		    const char *caller)
{
	_cleanup_free_ char **argv = NULL;
	char callerenv[160];
	char *envp[] = { (char *)"PATH=/usr/local/bin:/usr/bin:/bin", (char *)"LC_ALL=C.UTF-8",
			 callerenv, NULL };
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	size_t n = json_array_size(argvj), i, inlen = strlen(in), inoff = 0, elen = 0;
	size_t ecap = 4096;
	uint64_t end = tg_now_ms() + timeout_ms;
	pid_t pid;
	int rc = 0, st = 0;

	*out = NULL;
	*err = NULL;
	*killed = 0;
	*out_len = 0;
	snprintf(callerenv, sizeof(callerenv), "TOOLGATE_CALLER=%s", caller);
	argv = calloc(n + 1, sizeof(*argv));
	*out = malloc(cap + 1);
	*err = malloc(ecap + 1);
	if (!argv || !*out || !*err)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++)
		argv[i] = (char *)json_string_value(json_array_get(argvj, i));
	if (pipe2(pin, O_CLOEXEC) < 0 || pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "host tool: pipe");
		goto done;
	}
	pid = fork();
	if (pid < 0) {
		rc = tg_error_errno(TG_ERR_IO, errno, "host tool: fork");
		goto done;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (dup2(pin[0], 0) < 0 || dup2(pout[1], 1) < 0 || dup2(perr[1], 2) < 0)
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	setpgid(pid, pid);
	close_fd(&pin[0]);
	close_fd(&pout[1]);
	close_fd(&perr[1]);
	fcntl(pin[1], F_SETFL, O_NONBLOCK);
	if (inlen == 0)
		close_fd(&pin[1]);
	while (pout[0] >= 0 || perr[0] >= 0) {
		struct pollfd p[3] = { { pout[0], POLLIN, 0 }, { perr[0], POLLIN, 0 },
				       { pin[1], POLLOUT, 0 } };
		uint64_t now = tg_now_ms();
		int k;
		if (now >= end) {
			*killed = 1;
			break;
		}
		k = poll(p, 3, (int)(end - now));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		if (p[2].revents) {
			ssize_t w = write(pin[1], in + inoff, inlen - inoff);
			if (w > 0)
				inoff += (size_t)w;
			if (w < 0 && errno != EAGAIN)
				inoff = inlen;
			if (inoff >= inlen)
				close_fd(&pin[1]);
		}
		if (p[0].revents) {
			char buf[4096];
			ssize_t r = read(pout[0], buf, sizeof(buf));
			if (r <= 0) {
				close_fd(&pout[0]);
			} else if (*out_len + (size_t)r > cap) {
				*killed = 2;
				break;
			} else {
				memcpy(*out + *out_len, buf, (size_t)r);
				*out_len += (size_t)r;
			}
		}
		if (p[1].revents) {
			char buf[4096];
			ssize_t r = read(perr[0], buf, sizeof(buf));
			if (r <= 0) {
				close_fd(&perr[0]);
			} else {
				size_t take = (size_t)r < ecap - elen ? (size_t)r : ecap - elen;
				memcpy(*err + elen, buf, take);
				elen += take;
			}
		}
	}
	if (*killed)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (*killed)
		kill(-pid, SIGKILL); /* what it left behind in its group */
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
done:
	(*out)[*out_len] = '\0';
	(*err)[elen] = '\0';
	for (i = 0; i < 2; i++) {
		close_fd(&pin[i]);
		close_fd(&pout[i]);
		close_fd(&perr[i]);
	}
	return rc;
}


json_t *reg_host_call(reg_bridge *b, json_int_t id, const char *name, const json_t *args,
		      const char **outcome, int64_t *approval_id)
{
	_cleanup_free_ char *in = NULL, *out = NULL, *err = NULL;
	const json_t *ht = reg_host_find(&b->r->cfg, name);
	json_t *value = NULL, *x;
	tg_json_limits jl = { 0, 64 };
	char m[1400], ver[65];
	const char *why = "denied";
	uint32_t timeout_ms = HOST_DEF_TIMEOUT_MS;
	size_t cap = HOST_DEF_OUTPUT_KB * 1024u, olen = 0;
	uint64_t now;
	int status = 0, killed = 0, rc;

	*outcome = "failed";
	*approval_id = 0;
	if (!ht) {
		*outcome = "unknown";
		snprintf(m, sizeof(m), "no host tool named %s in this home's config.json", name);
		return err_reply(id, "unknown", m);
	}
	if (tg_schema_validate_flags(json_object_get(ht, "input_schema"), args, "args",
				     reg_schema_flags(&b->r->cfg, 0)) < 0) {
		snprintf(m, sizeof(m), "invalid arguments: %s", tg_error_last()->message);
		tg_error_clear();
		return err_reply(id, "tool_error", m);
	}
	if (b->test_mode) {
		/* a submission's test: answered from the test's fixtures only */
		json_t *fx = json_object_get(b->host_results, name);
		if (!fx) {
			if (b->unexpected && !b->unexpected[0])
				snprintf(b->unexpected, sizeof(b->unexpected_buf), "host:%s", name);
			*outcome = "unexpected";
			snprintf(m, sizeof(m), "host:%s was called but this test declares no "
					       "host_results fixture for it", name);
			return err_reply(id, "unexpected", m);
		}
		*outcome = "fixture";
		return json_pack("{s:I, s:O}", "id", id, "result", fx);
	}
	reg_host_version(ver, &b->r->cfg, name);
	if (needs_person(b, ht, args)) {
		char tool[80];
		snprintf(tool, sizeof(tool), "host:%s", name);
		rc = reg_call_approval_wait(b, tool, ver, args, approval_id, &why);
		if (rc < 0) {
			snprintf(m, sizeof(m), "approval queue: %s", tg_error_last()->message);
			tg_error_clear();
			*outcome = "failed";
			return err_reply(id, "internal", m);
		}
		if (rc == 0) {
			*outcome = strcmp(why, "timeout") == 0 ? "approval_timeout" : "denied";
			snprintf(m, sizeof(m), "%s (call approval %lld)",
				 strcmp(why, "timeout") == 0 ? "no person approved this call in time: "
							       "denied"
							     : "a person denied this call",
				 (long long)*approval_id);
			return err_reply(id, "denied", m);
		}
	}
	if ((x = json_object_get(ht, "result"))) {
		*outcome = "ok";
		return json_pack("{s:I, s:O}", "id", id, "result", x);
	}
	if ((x = json_object_get(ht, "timeout_ms")))
		timeout_ms = (uint32_t)json_integer_value(x);
	if ((x = json_object_get(ht, "output_kb")))
		cap = (size_t)json_integer_value(x) * 1024u;
	now = tg_now_ms();
	if (b->deadline_ms && b->deadline_ms <= now) {
		*outcome = "timeout";
		return err_reply(id, "timeout", "the run's wall-clock limit has passed");
	}
	if (b->deadline_ms && b->deadline_ms - now < timeout_ms)
		timeout_ms = (uint32_t)(b->deadline_ms - now);
	in = tg_json_dump(args);
	if (!in)
		return err_reply(id, "internal", "out of memory");
	rc = run_host(&out, &olen, &err, &status, &killed, json_object_get(ht, "argv"), in,
		      timeout_ms, cap, b->caller);
	if (rc < 0) {
		snprintf(m, sizeof(m), "%s", tg_error_last()->message);
		tg_error_clear();
		return err_reply(id, "internal", m);
	}
	if (killed) {
		snprintf(m, sizeof(m), killed == 1 ? "host tool %s: killed after %u ms"
						   : "host tool %s: output over the cap (%u ms limit)",
			 name, timeout_ms);
		return err_reply(id, "tool_error", m);
	}
	if (status != 0) {
		_cleanup_free_ char *clean = tg_registry_scrub(err);
		snprintf(m, sizeof(m), "host tool %s exited with status %d: %.1024s", name, status,
			 clean ? clean : "");
		return err_reply(id, "tool_error", m);
	}
	jl.max_bytes = cap + 1;
	if (tg_json_parse(&value, out, olen, &jl) < 0) {
		snprintf(m, sizeof(m), "host tool %s: its output is not one JSON value: %s", name,
			 tg_error_last()->message);
		tg_error_clear();
		return err_reply(id, "tool_error", m);
	}
	*outcome = "ok";
	return json_pack("{s:I, s:o}", "id", id, "result", value);
}
